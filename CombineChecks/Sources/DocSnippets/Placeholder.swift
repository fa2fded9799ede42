// The doc-snippet checker generates this target's other files from README.md's blocks fenced
// ```swift package=CombineChecks; this file keeps the target non-empty when there are none.
