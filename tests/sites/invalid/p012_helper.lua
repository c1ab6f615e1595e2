-- P012 inside a helper: reported at the helper's line, with a note at the
-- caller's line.  The helper ends in a tail call (`return recipe(...)`),
-- the form SPEC 2.4 shows, which Lua runs without keeping the helper's
-- frame: the binding must still find the helper's line.
--! P012 8
--! note 13
local function config(path, text)
  return file.has_content(path, text, { mdoe = "0644" })
end

host "conf.example.com" {
  os.debian("bookworm", "amd64"),
  config("/etc/app.conf", "a=1\n"),
}
