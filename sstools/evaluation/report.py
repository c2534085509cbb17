"""A run's result: each scenario passed, failed (with reasons) or skipped; accuracy per kind."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, computed_field


class Status(StrEnum):
    passed = "passed"
    failed = "failed"
    # Not run: no credentials for its role (a run against a server), or its expectation is
    # still to be filled in (a scenario from `sstools eval --from-feedback`).
    skipped = "skipped"


class ScenarioResult(BaseModel):
    id: str
    kind: str
    source: str | None
    role: str
    status: Status
    reasons: list[str] = []
    tools_called: list[str] = []
    answer: str = ""


class Accuracy(BaseModel):
    kind: str
    passed: int
    total: int  # skipped scenarios are not counted

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accuracy(self) -> float:
        return self.passed / self.total if self.total else 0.0


class Report(BaseModel):
    model: str  # the model that answered, as far as the harness knows it
    router: str | None = None  # the tool router in front of it (None: the server's, unknown)
    target: str  # the server the scenarios ran against
    results: list[ScenarioResult]

    def _accuracy(self, kind: str, results: list[ScenarioResult]) -> Accuracy:
        graded = [result for result in results if result.status is not Status.skipped]
        passed = sum(result.status is Status.passed for result in graded)
        return Accuracy(kind=kind, passed=passed, total=len(graded))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def kinds(self) -> list[Accuracy]:
        names = sorted({result.kind for result in self.results})
        return [
            self._accuracy(name, [result for result in self.results if result.kind == name])
            for name in names
        ]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def overall(self) -> Accuracy:
        return self._accuracy("overall", self.results)


_MARK = {Status.passed: "PASS", Status.failed: "FAIL", Status.skipped: "SKIP"}


def render(report: Report) -> str:
    """The report for a terminal: one line per scenario, its reasons under it, then the table."""
    router = report.router or "the server's setting"
    lines = [f"model: {report.model}", f"router: {router}", f"target: {report.target}", ""]
    width = max(len(result.id) for result in report.results)
    kind_width = max(len("overall"), *(len(result.kind) for result in report.results))
    for result in report.results:
        called = ", ".join(result.tools_called) or "-"
        lines.append(
            f"{_MARK[result.status]}  {result.id:<{width}}  {result.kind:<{kind_width}}  {called}"
        )
        lines += [f"      {reason}" for reason in result.reasons]
    lines += ["", f"{'kind':<{kind_width}}  passed  total  accuracy"]
    for row in [*report.kinds, report.overall]:
        lines.append(
            f"{row.kind:<{kind_width}}  {row.passed:>6}  {row.total:>5}  {row.accuracy:>8.0%}"
        )
    return "\n".join(lines)
