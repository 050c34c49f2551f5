package assemble

// ReasonNotRun is the reason of a case or program the input has no entry
// for, for the external tests.
const ReasonNotRun = reasonNotRun
