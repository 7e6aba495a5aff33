package queue

// claimCalibrationWork, when set, runs after every claim with the number
// of tasks claimed. It is nil in every build but the perf gate's
// calibration build (gatecal_slow.go, build tag gatecal), which makes the
// claim do measurably more work so that the gate's detection of a real
// slowdown can be measured (results/gate-calibration/).
var claimCalibrationWork func(tasks int)
