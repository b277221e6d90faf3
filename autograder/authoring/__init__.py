"""Authoring the course: exercises built from solutions/ (`build`), the student bundle (`release`, with the self-check's public cases: grading.public_cases), the demo's sample class.
May import: `grading` (preflight, the checks' runner), `references`, `course`.
Must never import: `platforms` (which build on it), nor `sandbox` internals; nothing here grades a class."""
