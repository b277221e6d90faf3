"""Probes: functions that run next to the student's code and return plain data.

Each module is named after its notebook. A probe is ``def name(ns, **kwargs)``, where `ns` is
the notebook's namespace; it calls the student's code on the inputs it is given and returns
numbers, strings and arrays. Probes never judge: the grader's checks do.
"""
