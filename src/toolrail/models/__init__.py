"""Models an agent loop talks to: the `Model` protocol, `ScriptedModel`, provider adapters."""
