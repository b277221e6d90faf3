"""Grading: find a class's submissions, run each in the sandbox, judge its probes' replies with the checks, write its result (`grade`, `judge`, `replies`, `report`, `late`, `executors`, `names`, the self-check and its `public_cases`).
May import: `sandbox`, `course`, `references` (the judge's side of the checks), `probes.schema`.
Must never import: `reports`, `authoring`, `platforms` (they build on grading), nor the checks (pytest runs them)."""
