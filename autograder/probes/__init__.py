"""Probes: functions that run next to the student's code, in the submission's process, and return plain data; their reply schemas (`schema`).
May import: other probes only (and what the assignment allows the student: NumPy, matplotlib).
Must never import: anything of the grader's side (grading, references, checks, the sandbox's grader half): they are shipped to students.

Each module is named after its notebook; `common` (figures, preloaded in every sandbox) and
`dp_common` (an op's value and gradients, the trained network as data: for the notebooks that
allow dp) hold what several share. A probe is ``def name(ns, **kwargs)``, where `ns` is
the notebook's namespace; it calls the student's code on the inputs it is given and returns
numbers, strings and arrays. Probes never judge: the grader's checks do.
"""
