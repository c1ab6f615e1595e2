-- An endless loop hits the instruction budget.
--! args --max-instructions 50000000
--! fatal 4 instruction
while true do end
