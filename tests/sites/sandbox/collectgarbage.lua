-- collectgarbage is not available either.
--! fatal 3 undefined global "collectgarbage"
collectgarbage("stop")
