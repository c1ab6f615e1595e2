-- Near P006: the web server and the bridge on different hosts; a Lua
-- property on a port of its own.
local exporter = property {
  desc = "exporter listening on 9100",
  ports = { 9100 },
  apply = function(sys) sys:run { "systemctl", "start", "prometheus-node-exporter" } end,
}

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  exporter,
}

host "bridge.example.com" {
  os.debian("bookworm", "amd64"),
  tor.bridge(),
  exporter,
}
