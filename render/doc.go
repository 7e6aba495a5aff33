// Package render shows plans to people. It reads plan data and writes text;
// it decides nothing. The JSON view is plan.Plan.Write.
package render
