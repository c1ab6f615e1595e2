-- Recipe modules are read-only.
--! fatal 3 read-only
apt.installed = function() end
