-- error() from the site itself.
--! fatal 3 no hosts for this environment
error("no hosts for this environment")
