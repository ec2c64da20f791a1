-- Headless check, run as `nvim --headless -n -i NONE -u init.lua FILE -c 'luafile check.lua'`:
-- wait for the server's diagnostics, hover the finding, fetch and apply its quick fix, run a
-- command, and write what happened as JSON to $TFI_RESULT. Any Lua error is caught (an
-- uncaught one would hang headless nvim) and reported in the JSON.
local out = { steps = {} }

local function step(name, value)
  table.insert(out.steps, name)
  out[name] = value
end

local function finish(code)
  local file = assert(io.open(os.getenv("TFI_RESULT"), "w"))
  file:write(vim.json.encode(out))
  file:close()
  vim.cmd((code == 0) and "qa!" or "cq!")
end

local function tfi001()
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.code == "TFI001" then
      return d
    end
  end
  return nil
end

local function main()
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.wait(60000, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "tf-insight" }) > 0
  end, 50), "the server did not attach")
  local client = vim.lsp.get_clients({ bufnr = buf, name = "tf-insight" })[1]
  step("encoding", client.offset_encoding)

  assert(vim.wait(60000, function() return tfi001() ~= nil end, 50), "no TFI001 diagnostic")
  local d = tfi001()
  step("diagnostic", { code = d.code, lnum = d.lnum, col = d.col, source = d.source,
                       severity = d.severity, message = d.message })

  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = d.lnum, character = d.col + 2 },
  }, 20000)
  local hover_text = ""
  for _, response in pairs(hover or {}) do
    if response.result and response.result.contents then
      hover_text = response.result.contents.value or ""
    end
  end
  step("hover", hover_text)

  local lsp_diagnostic = d.user_data and d.user_data.lsp or nil
  local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = lsp_diagnostic and lsp_diagnostic.range or {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = { lsp_diagnostic } },
  }, 20000)
  local titles, fix = {}, nil
  for _, response in pairs(actions or {}) do
    for _, action in ipairs(response.result or {}) do
      table.insert(titles, action.title)
      if action.isPreferred then
        fix = action
      end
    end
  end
  step("actions", titles)
  assert(fix, "no preferred quick fix")
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
  step("fixed_text", table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"))
  assert(vim.wait(60000, function() return tfi001() == nil end, 50),
         "TFI001 still reported after the fix")
  step("after_fix", #vim.diagnostic.get(0))

  local rule = vim.lsp.buf_request_sync(buf, "workspace/executeCommand", {
    command = "tfInsight.showRule", arguments = { "TFI001" } }, 20000)
  for _, response in pairs(rule or {}) do
    if response.result then
      step("rule", response.result.markdown)
    end
  end
  local info = vim.lsp.buf_request_sync(buf, "tfInsight/serverInfo", {}, 20000)
  for _, response in pairs(info or {}) do
    if response.result then
      step("server", { tensorflowImported = response.result.tensorflowImported,
                       pushDiagnostics = response.result.pushDiagnostics,
                       positionEncoding = response.result.positionEncoding })
    end
  end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  out.error = tostring(err)
  finish(1)
else
  finish(0)
end
