package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/pgseq/pgseq/scenarios/report"
)

// CalibrationFormatVersion is the version of the calibration document.
const CalibrationFormatVersion = "1.0"

// FloorMargin widens the largest change A/A runs produced into the floor:
// ten runs rarely show the largest change the machine can produce.
const FloorMargin = 1.25

// MinFloor is the smallest floor calibration sets: changes below 1% are
// not what a regression gate is for.
const MinFloor = 0.01

// Calibration is what A/A runs (the same build as base and candidate)
// measured: for each gated metric, the changes that noise alone produced,
// and the noise floor the gate then uses.
type Calibration struct {
	FormatVersion string    `json:"format_version"`
	CreatedAt     time.Time `json:"created_at"`
	// Command is the calibrate command line.
	Command     []string           `json:"command"`
	Environment report.Environment `json:"environment"`
	// Runs is the number of A/A runs, Rounds the rounds of each.
	Runs   int  `json:"runs"`
	Rounds int  `json:"rounds"`
	Quick  bool `json:"quick"`
	// Loads are the host's 1-minute load averages at each run's start.
	Loads   []float64 `json:"loads"`
	Metrics []Noise   `json:"metrics"`
	// RunsWithFalseAlarm counts the A/A runs in which the whole rule
	// would have flagged any metric (leave-one-out floors): over Runs, the
	// gate's false-positive rate on this machine.
	RunsWithFalseAlarm int `json:"runs_with_false_alarm"`
}

// Noise is one gated metric's A/A record.
type Noise struct {
	Scenario string `json:"scenario"`
	Metric   string `json:"metric"`
	// Changes are each A/A run's measured change (candidate / base − 1).
	Changes []float64 `json:"changes"`
	// MaxChange is the largest |change|; Floor = max(MinFloor,
	// FloorMargin × MaxChange).
	MaxChange float64 `json:"max_change"`
	Floor     float64 `json:"floor"`
	// Significant counts the runs whose test alone (Holm-adjusted) called
	// the change significant: the test's false alarms. A plan's metrics
	// have no test: for them, the runs whose plans differed at all.
	Significant int `json:"significant"`
	// FalsePositives counts the runs the whole rule would have flagged,
	// each judged against a floor computed from the other runs only
	// (leave one out): an honest estimate of the gate's false alarms.
	FalsePositives int `json:"false_positives"`
}

// Calibrate computes the floors from A/A runs: runs[j] are run j's rows,
// judged (Judge) with the default floors.
func Calibrate(runs [][]Row) *Calibration {
	c := &Calibration{FormatVersion: CalibrationFormatVersion, Runs: len(runs)}
	if len(runs) == 0 {
		return c
	}
	for _, r := range runs[0] {
		// The most rounds of a row: a scenario run once per build has one.
		c.Rounds = max(c.Rounds, len(r.Base))
	}
	alarmed := make([]bool, len(runs)) // runs with any false alarm
	for _, r := range runs[0] {
		if !r.Gated {
			continue
		}
		n := Noise{Scenario: r.Scenario, Metric: r.Metric}
		var significant []bool
		var runOf []int
		for j, rows := range runs {
			for _, x := range rows {
				if x.Scenario == r.Scenario && x.Metric == r.Metric {
					n.Changes = append(n.Changes, x.Change)
					significant = append(significant, (x.Deterministic && x.Change != 0) || (x.PAdjusted >= 0 && x.PAdjusted < DefaultAlpha))
					runOf = append(runOf, j)
				}
			}
		}
		n.MaxChange, n.Floor = floorOf(n.Changes, -1)
		for i, ch := range n.Changes {
			if significant[i] {
				n.Significant++
				if _, f := floorOf(n.Changes, i); math.Abs(ch) > f {
					n.FalsePositives++
					alarmed[runOf[i]] = true
				}
			}
		}
		c.Metrics = append(c.Metrics, n)
	}
	for _, a := range alarmed {
		if a {
			c.RunsWithFalseAlarm++
		}
	}
	return c
}

// floorOf returns the largest |change| (leaving out index skip) and the
// floor it gives.
func floorOf(changes []float64, skip int) (largest, floor float64) {
	for i, ch := range changes {
		if i != skip {
			largest = math.Max(largest, math.Abs(ch))
		}
	}
	return largest, math.Max(MinFloor, FloorMargin*largest)
}

// Floor returns the calibrated floor of a metric.
func (c *Calibration) Floor(scenario, metric string) (float64, bool) {
	if n := c.noise(scenario, metric); n != nil {
		return n.Floor, true
	}
	return 0, false
}

// WriteJSON writes the calibration.
func (c *Calibration) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// ReadCalibration reads a calibration written by WriteJSON.
func ReadCalibration(r io.Reader) (*Calibration, error) {
	var c Calibration
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return nil, fmt.Errorf("reading the calibration: %w", err)
	}
	if c.FormatVersion == "" {
		return nil, errors.New("reading the calibration: it has no format_version: not a pgseq bench calibrate result")
	}
	want, _, _ := strings.Cut(CalibrationFormatVersion, ".")
	if got, _, _ := strings.Cut(c.FormatVersion, "."); got != want {
		return nil, fmt.Errorf("reading the calibration: its format is %q and this pgseq reads %s.x; run pgseq bench calibrate again", c.FormatVersion, want)
	}
	return &c, nil
}

// table returns the calibration's rows as cells.
func (c *Calibration) table() [][]string {
	rows := [][]string{{"SCENARIO", "METRIC", "A/A CHANGES", "LARGEST", "FLOOR", "SIGNIFICANT", "FALSE ALARMS"}}
	for _, n := range c.Metrics {
		changes := make([]string, len(n.Changes))
		for i, ch := range n.Changes {
			changes[i] = signedPercent(ch)
		}
		rows = append(rows, []string{n.Scenario, n.Metric, strings.Join(changes, " "),
			percent(n.MaxChange), "±" + percent(n.Floor),
			fmt.Sprintf("%d of %d", n.Significant, len(n.Changes)),
			fmt.Sprintf("%d of %d", n.FalsePositives, len(n.Changes))})
	}
	return rows
}

// noise returns a metric's record, or nil.
func (c *Calibration) noise(scenario, metric string) *Noise {
	for i := range c.Metrics {
		if c.Metrics[i].Scenario == scenario && c.Metrics[i].Metric == metric {
			return &c.Metrics[i]
		}
	}
	return nil
}

func (c *Calibration) header() string {
	return fmt.Sprintf("%d A/A runs of %d rounds (%s), %d with a false alarm; %d CPUs (%s), %s; load at each run's start %s",
		c.Runs, c.Rounds, map[bool]string{true: "quick sizes", false: "full sizes"}[c.Quick], c.RunsWithFalseAlarm,
		c.Environment.NumCPU, c.Environment.CPUModel, firstWords(c.Environment.Postgres, 2), loadsText(c.Loads))
}

// WriteText writes the floors as a table.
func (c *Calibration) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(c.header() + "\n\n")
	report.WriteAligned(&b, c.table(), make([]bool, 7))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the floors for a results page.
func (c *Calibration) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# pgseq bench calibrate\n\n%s.\n\n", c.header())
	fmt.Fprintf(&b, "Command: `%s`\n\n", strings.Join(report.RedactCommand(c.Command), " "))
	b.WriteString("Each A/A run is a `bench ab` of one build against itself: every change it measures is noise. " +
		"The floor is the largest change seen, widened by a quarter (at least 1%). " +
		"*Significant* counts the runs whose paired test (Holm-adjusted, 0.05) called the change real " +
		"(for a plan's rows, buffers and scans, which have no test: the runs whose plans differed at all); " +
		"*false alarms* the runs the whole rule would have flagged, each judged against a floor made from the other runs only.\n\n")
	writeMarkdownTable(&b, c.table())
	_, err := io.WriteString(w, b.String())
	return err
}
