-- Helper functions that build properties: a site reads like a list of
-- intentions and the details live in one place.

local function nginx_site(name, port)
  local path = "/etc/nginx/sites-available/" .. name
  return file.has_content(path, {
    "server {",
    "  listen " .. port .. ";",
    "  server_name " .. name .. ";",
    "  root /srv/" .. name .. ";",
    "}",
  }):before(file.symlink("/etc/nginx/sites-enabled/" .. name, path))
    :on_change(service.restarted "nginx")
end

local function web_root(name)
  return file.directory("/srv/" .. name, { mode = "0755", owner = "www-data" })
end

local function listener(port)
  return property {
    desc = "firewall allows port " .. port,
    targets = "DebianLike",
    ports = { port },
    check = function(sys) return sys:run({ "ufw", "status" }).stdout:find(tostring(port)) ~= nil end,
    apply = function(sys) sys:run({ "ufw", "allow", tostring(port) }) end,
  }
end

local sites = { "blog.example.com", "shop.example.com" }
local list = { os.debian("bookworm", "amd64"), apt.installed "nginx", listener(8080) }
for i, name in ipairs(sites) do
  list[#list + 1] = web_root(name)
  list[#list + 1] = nginx_site(name, 8080 + i)
end
list[#list + 1] = service.running "nginx"

host("front.example.com", list)
