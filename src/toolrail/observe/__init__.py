"""Observability sinks: OpenTelemetry spans (`[otel]` extra) and Prometheus metrics
(`[prometheus]` extra). Each is an ordinary sink; import the module you need:

    from toolrail.observe.otel import OtelSink
    from toolrail.observe.metrics import PrometheusSink, serve_metrics
"""
