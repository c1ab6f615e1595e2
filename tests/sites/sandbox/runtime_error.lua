-- A runtime error in the site names the file and line.
--! fatal 5 attempt to index a nil value
local settings = nil
host "web1.example.com" {
  file.has_content("/etc/app.conf", settings.content),
}
