-- Minimal Neovim config for the headless check: start the TF Insight server for Python buffers.
-- TFI_SERVER: the `tf-insight-server` console script (as the README advises: `python -m` would
-- import from Neovim's current folder first); TFI_ROOT: the workspace folder.
vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = function(args)
    vim.lsp.start({
      name = "tf-insight",
      cmd = { os.getenv("TFI_SERVER") },
      root_dir = os.getenv("TFI_ROOT"),
      init_options = { tfInsight = { keras = "auto", session = { maxHits = 50 } } },
    }, { bufnr = args.buf })
  end,
})
