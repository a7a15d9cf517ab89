"""What ``replay.begin`` decided for this run, kept for ``recorder.py`` later in the same run."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_harness.cli.early_request.trace import FileTrace


class EarlyState:
    """What ``begin`` decided, for the recorder (``recorder.py``) later in the same run."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> EarlyState:
        """Forget the previous run's decision (a host may run ``pi`` twice in one process)."""
        self.mode = "off"  # "off", "sent" (a recorded request went out) or "tracing"
        self.path = ""  # the record's file
        self.record: dict[str, object] = {}
        self.argv: list[str] = []
        self.cwd = ""
        self.agent_dir = ""
        self.environ: dict[str, str] = {}
        self.stdin: str | None = None
        self.stdout_tty = False  # a terminal on stdout may choose another mode for the same words
        self.trace: FileTrace | None = None
        self.eligible = False  # set by the recorder once the run is known to be recordable
        self.prompt = ""
        self.session_id = ""
        # A run that continues a session file records at its end instead (``rehearsal.py``).
        self.rehearse = False
        self.session_file = ""  # that session file
        self.model_key: tuple[str, str, str] = ("", "", "")  # its model (provider, id, baseUrl)
        self.first_key: tuple[str, str, int] | None = None  # where its first request went
        self.observed: dict[tuple[str, str], object] | None = None  # what its startup looked at
        self.mismatched = False  # a request sent ahead was not the session's own
        self.rehearsed: tuple[tuple[str, str, int], bytes] | None = None  # the next run's request
        return self


STATE = EarlyState()  # one per process, reset by each run


def stop_tracing() -> None:
    """Startup knows this run records nothing (another mode, another kind of run)."""
    if STATE.trace is not None:
        STATE.trace.stop()
    if STATE.mode == "tracing":
        STATE.mode = "off"
