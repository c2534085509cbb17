"""Evaluate the agent end to end: scenario files in, pass/fail and accuracy per kind out.

``sstools eval`` (:mod:`.command`) is the command line; the pieces are the scenario model
(:mod:`.scenarios`), the runner over HTTP (:mod:`.runner`), the grading (:mod:`.grading`) and the
report (:mod:`.report`). Nothing is imported here: the ``sstools`` command loads this package for
every subcommand, and the agent's modules take a second to import.
"""
