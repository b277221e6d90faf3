"""The sandbox: start, seal, limit and talk to a submission process; the grader enters by `process.Sandbox` (and `seal` to ask whether isolation is available).
May import: `course` (paths and limits) and `probes` (which it runs inside the submission); nothing else.
Must never import: where the answers live (references, checks, solutions), nor grading, reports, authoring, platforms; this file imports nothing, since the submission's own process imports the package on its way to `runner`."""
