-- Web sites made from what they are.  A site says its names, what it
-- serves and its TLS; prop writes nginx's configuration from that, and the
-- checker sees the same ports and names the server will listen on.
--
--   prop lint examples/web_sites.lua
--   prop claims examples/web_sites.lua port:443
--   prop show examples/web_sites.lua www.example.org
--
-- bridge.example.org is a Tor bridge that later got a web site.  A bridge
-- listens on 443 unless told otherwise: with tor.bridge() in place of the
-- line below, lint stops before anything runs:
--
--   web_sites.lua:50: error[P006]: port 443 is used by both "web site
--   bridge.example.org (nginx) https" and "tor bridge" on host
--   "bridge.example.org": two services cannot listen on one port
--
-- Moving the bridge to another port, as here, makes the host clean.
--
-- www.example.org carries several HTTPS sites: two names on one Let's
-- Encrypt certificate, two backends behind one certificate of their own
-- (certs/shop-blog.example.org.pem names both; its key is in
-- web_sites.secrets, encrypted to a key made for this example and thrown
-- away), and an old name that redirects.  A second site answering
-- www.example.org on 443, or a second default site, would be P017.

local acme = "hostmaster@example.org"

-- A backend the host runs, listening on a loopback port: declaring the
-- port is what lets a proxy to it lint clean (W106 otherwise).
local function backend(name, port)
  return property {
    desc = name .. " backend on port " .. port,
    targets = "DebianLike",
    ports = { port },
    check = function(sys)
      return (sys:tcp { host = "127.0.0.1", port = port, framing = "connect" })
    end,
    apply = function(sys) sys:run { "systemctl", "start", name } end,
  }
end

local shop_blog_tls = {
  cert = site.file "certs/shop-blog.example.org.pem",
  key = secret "shop-blog.example.org.key",
}

host "bridge.example.org" {
  os.debian("bookworm", "amd64"),
  tor.bridge { port = 9001 },
  nginx.installed(),
  web.site("bridge.example.org",
           { root = "/srv/www/bridge", tls = "letsencrypt", email = acme }),
}

host "www.example.org" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  backend("shop", 8080),
  backend("blog", 2368),
  web.site({ "example.org", "www.example.org" },
           { root = "/srv/www/example.org", tls = "letsencrypt", email = acme }),
  web.site("shop.example.org", { proxy = "http://127.0.0.1:8080", tls = shop_blog_tls }),
  web.site("blog.example.org", { proxy = "http://127.0.0.1:2368", tls = shop_blog_tls }),
  web.site("old.example.org", { redirect = "https://example.org" }),
}
