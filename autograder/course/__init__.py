"""The course: course.toml (`config`), the notebooks students hand in (`notebook`), the exercises they were given (`exercise`).
May import: the standard library only; every other package of the grader builds on this one.
Must never import: anything else of the autograder (it is the bottom layer, and part of the student bundle)."""
