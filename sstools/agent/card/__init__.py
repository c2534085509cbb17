"""The card a person decides on: a plan read once (:mod:`plan`), what it does in words
(:mod:`impact`), the call's arguments (:mod:`arguments`), what may be edited and an edit checked
(:mod:`edits`), the card built once after the preview (:mod:`build`), and a stored card read
back (:mod:`decode`)."""
