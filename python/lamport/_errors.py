"""The exceptions of the compiler side: lamport.Error, and lamport.MLIRError
with the diagnostics of a verification (the extension raises both)."""

from typing import NamedTuple


class Error(Exception):
    """A failure of the compiler: the text holds every error it reported,
    one a line, each with its location."""


class DiagnosticInfo(NamedTuple):
    """One diagnostic: severity ("error", "warning", "note", "remark"),
    location ("file:line:col" for a file location), message, and notes
    (DiagnosticInfo each)."""

    severity: str
    location: str
    message: str
    notes: tuple = ()

    def __str__(self):
        text = f"{self.location}: {self.severity}: {self.message}"
        for note in self.notes:
            text += f"\n{note.location}: note: {note.message}"
        return text


class MLIRError(Error):
    """An op or type that does not verify. `error_diagnostics` holds every
    diagnostic (DiagnosticInfo) reported; the text lists them, one a line,
    after what failed."""

    def __init__(self, message, error_diagnostics=()):
        super().__init__(message)
        self.message = message
        self.error_diagnostics = list(error_diagnostics)


# Tracebacks name them where users import them from.
for _exported in (Error, DiagnosticInfo, MLIRError):
    _exported.__module__ = "lamport"
