"""TF Insight language server: adapts :mod:`tf_insight` to LSP (pygls 2)."""
