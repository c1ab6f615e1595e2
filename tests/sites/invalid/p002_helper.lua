-- P002 for a property made inside a helper: the diagnostic is at the
-- helper's line and a note points at the caller.
--! P002 6
--! note 12
local function web_packages()
  local p = apt.installed { "nginx", "certbot" }
  return p
end

host "bsd.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  web_packages(),
}
