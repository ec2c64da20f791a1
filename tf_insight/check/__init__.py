"""The static checker: source → findings, for `tf-insight check` and the language server.

One walk per file: `source` (text → tree, incremental edits) → `imports`/`names` (what each
name refers to) → `index` (functions, classes, calls) → `context` (which functions run as a
graph, and how) with `project`/`resolve` (the same across modules, jedi into site-packages)
and `guards` (code that cannot see a symbolic tensor) → `rules/` (one rule per module) →
`analyzer` (findings of a file or a tree) → `fixes`, `report` (text/JSON/SARIF), `cli`.
`keras_flavor` decides which Keras a file runs on. Shared with the other features:
`tf_insight.findings` and `tf_insight.config`.
"""
