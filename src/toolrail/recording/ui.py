"""A terminal renderer for `ToolStreamHandler` (needs the `ui` extra: rich).

Running calls are live lines at the bottom, redrawn a dozen times a second (a line's text
is made only when a frame shows it); a finished call's line is printed above them for good.
Parallel calls each get their own line.
"""

from __future__ import annotations

from types import TracebackType

try:
    from rich.console import Console, Group
    from rich.live import Live
    from rich.text import Text
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.recording.ui needs rich: pip install 'toolrail[ui]'"
    ) from error

from toolrail.recording.stream import ProgressUpdate, ToolStreamHandler

_STYLES = {"requested": "dim", "running": "cyan", "completed": "green", "failed": "red"}


class LiveProgress:
    """`with LiveProgress(handler): ...` shows the handler's updates on the terminal."""

    def __init__(self, handler: ToolStreamHandler, *, console: Console | None = None) -> None:
        self.handler = handler
        self.console = console or Console()
        self._progress: dict[str, ProgressUpdate] = {}
        self._live = Live(
            console=self.console,
            refresh_per_second=12,
            transient=True,
            get_renderable=self._render,  # on the refresh thread, at its pace
        )
        handler.on_update(self._show)

    def __enter__(self) -> LiveProgress:
        self._live.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._live.__exit__(kind, error, traceback)

    def _show(self, update: ProgressUpdate) -> None:
        if update.finished:
            self._progress.pop(update.call_id, None)
            line = Text(f"  {update.text}", style=_STYLES[update.status])
            if update.terminator is not None:
                line.stylize("bold")
            self._live.console.print(line)
        else:
            self._progress[update.call_id] = update

    def _render(self) -> Group:
        running = tuple(self._progress.values())  # one step under the GIL: a snapshot
        return Group(*(Text(f"  ⠿ {u.text}", style=_STYLES[u.status]) for u in running))
