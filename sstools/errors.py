"""The one root of sstools' own errors; the HTTP edge maps them to statuses, not the errors.

Every exception sstools raises on purpose derives from :class:`SstoolsError` (beside a standard
base such as ``ValueError`` where a library needs one), so a handler can tell ours from a bug.
An error carries data and words (from a catalogue: ``sstools.texts`` for the API face); which
HTTP status and body it gets is one table, ``sstools.app.ERROR_ANSWERS``.
``tests/test_errors.py`` fails on an exception class of sstools outside this tree.
The tree, by area:

    SstoolsError
    │
    │   superset/errors.py — talking to Superset
    ├── SupersetError                  carries the environment id
    │   ├── SupersetUnavailable
    │   ├── SupersetAuthError
    │   ├── SupersetForbidden
    │   ├── SupersetNotFound
    │   ├── SupersetBadRequest
    │   └── ReleaseTooOld              a release before 5.0 (its lists carry no UUIDs)
    ├── FieldNotTaken                  superset/versions.py: a release has no place for a field
    │
    │   sql/ — reading SQL
    ├── SqlSyntaxError (+ ValueError)
    │   └── SqlTooDeep
    │
    │   git_store/errors.py — the repository of exports
    ├── GitStoreError
    │   ├── UnknownBranch, BranchExists, ConcurrentUpdate, ReservedBranch
    │   ├── UnknownCommit, CorruptCommit
    │   └── ExportError
    │
    │   auth/ and http/auth.py — who is calling
    ├── InvalidToken
    ├── UserExists
    ├── SecretFileError
    ├── RoleRequired
    │
    │   tasks/ — durable tasks
    ├── TaskError                      tasks/errors.py
    │   ├── TaskNotFound, TaskConflict, TaskFinished, TaskCancelForbidden
    │   └── TaskLimited
    │       └── TooManyTasks
    ├── TaskFailed                     a workflow's verdict: end the task `failed`
    ├── RecordedStepError              a step's failure read back from a checkpoint
    ├── StepCancelled (+ DBOSWorkflowCancelledError)
    ├── TasksBusy (+ RuntimeError)
    │
    │   environments.py, storage/
    ├── ConfigError                    the environments file cannot be used
    ├── ClaimLost                      a run's claim taken over by another worker
    │
    │   domain/ — one tree per capability
    ├── DeployError                    domain/deploy/errors.py
    │   ├── UnknownDashboard, UnknownEnvironment, InvalidPlanRequest, StalePlan, VersionSkew
    │   └── SnapshotUnusable           domain/deploy/rollback.py
    ├── BundleMissing                  domain/deploy/bundles.py
    ├── BackupError                    domain/backups/errors.py
    │   ├── BackupNotFound
    │   └── ArchiveCorrupt
    ├── DatasetRefused                 domain/datasets.py
    │   └── DatasetInvalid, DatasetExists, DatabaseSilent
    ├── ReviewFailed                   domain/validation/review.py
    ├── DocumentRejected               domain/documentation/writer.py
    ├── DashboardMissing (+ LookupError) domain/timeline/gather.py
    │
    │   web/
    ├── LoginRequired                  a page without a session: redirect to /login
    ├── NotStrictJson (+ ValueError)
    │
    │   sandbox/, evaluation/, testing/ — the commands around the service
    ├── SandboxError
    ├── ScenarioFileError, ApiError    sstools eval
    ├── PostgresUnreachable            testing/fleet.py
    │
    │   agent/ — a run and its calls
    ├── ContextRejected (+ ValueError) context.py: a UIContext the page may not send
    ├── ModelFailed                    explain.py: the model call failed or answered nothing usable
    ├── ToolArgumentError (+ ValueError) tools/spec.py: arguments that do not say enough
    │   └── UnsafeSegment              tools/paths.py: a value that would change the route
    ├── ToolDeclarationError (+ ValueError) a tool declared without its facts
    ├── AlreadyDecided                 run/decisions.py: a confirmation decided twice
    ├── Busy, TooManyRuns              run/claims.py: the conversation or the user is at a cap
    ├── TooManyStreams                 run/stream_slots.py
    └── _RouteChanged, _Transient      executor.py, private: a retry's reasons
"""

from __future__ import annotations


class SstoolsError(Exception):
    """An error sstools raises on purpose; anything else reaching an edge is a bug."""
