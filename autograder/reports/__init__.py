"""Reports on a graded class, for the instructor: the class at a glance (`classreport`) and copies found (`similarity`).
May import: `grading` (its result files and discovery), `references` (the catalogue of known mistakes), `course`.
Must never import: `sandbox` internals, `authoring`, `platforms`; no submission code runs here."""
