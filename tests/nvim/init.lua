-- Minimal Neovim config for the headless check: start the TF Insight server for Python buffers.
-- TFI_PYTHON: the interpreter that runs `-m tf_insight_server`; TFI_ROOT: the workspace folder.
vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = function(args)
    vim.lsp.start({
      name = "tf-insight",
      cmd = { os.getenv("TFI_PYTHON"), "-m", "tf_insight_server" },
      root_dir = os.getenv("TFI_ROOT"),
      init_options = { tfInsight = { keras = "auto", session = { maxHits = 50 } } },
    }, { bufnr = args.buf })
  end,
})
