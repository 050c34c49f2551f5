package report

// NoEvidence reports whether a case that is not true has no evidence to
// show: the sandbox never ran it (no exit, no output, no flag), so a
// rendering can fold such cases into one line per shared reason.
func (c *Case) NoEvidence() bool { return isBare(c) }
