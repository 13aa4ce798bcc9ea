package prints

import (
	"slices"

	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
)

// States are the one vocabulary operators read for prints of both
// families, where each family's API keeps its own words: Family A fails
// as processingfailed whether a render failed, an operator flagged it or
// cancelled it, and Family B is processing from the order to the file.
const (
	StateQueued    = "queued"    // waiting for a render
	StateRendering = "rendering" // a render has started
	StateReady     = "ready"     // its files can be downloaded
	StateFailed    = "failed"    // its render failed
	StateFlagged   = "flagged"   // an operator failed it with a reason
	StateCancelled = "cancelled" // an operator (or Family B's client) cancelled it
)

// CountCap bounds each count of prints in a state: a count of CountCap
// means that many or more. The states that need attention hold few
// prints; counting every ready one of a busy service on each page would
// cost more than the page.
const CountCap = 1_000

// States lists them in the order a print goes through them.
var States = []string{StateQueued, StateRendering, StateReady, StateFailed, StateFlagged, StateCancelled}

// Stop is what the store keeps of the operator's action that stopped a
// print, while the print is failed (or cancelled) because of it; any
// other change of its status clears it.
type Stop string

// Stops.
const (
	StopNone      Stop = ""
	StopFlagged   Stop = EventFlagged
	StopCancelled Stop = EventCancelled
)

// Stage is what the store knows of a print beyond its status: the
// operator's action that stopped it, and whether the render that owns it
// has started (Family B, whose status does not say).
type Stage struct {
	Stop    Stop
	Started bool
}

// State is the state of a print of family in status (its family's words)
// at stage.
func State(family, status string, stage Stage) string {
	switch status {
	case orders.PrintReceived:
		return StateQueued
	case orders.PrintReady: // shop.PrintReady is the same word
		return StateReady
	case shop.PrintCancelled:
		return StateCancelled
	case orders.PrintProcessing: // and shop.PrintProcessing
		if family == FamilyB && !stage.Started {
			return StateQueued
		}
		return StateRendering
	}
	switch stage.Stop {
	case StopFlagged:
		return StateFlagged
	case StopCancelled:
		return StateCancelled
	}
	return StateFailed
}

// ValidState reports whether s is one of States.
func ValidState(s string) bool { return slices.Contains(States, s) }

// State is the print's state.
func (p *Print) State() string { return State(p.Family, p.Status, p.Stage) }

// Batchable reports whether a print in state may go into a batch, which
// renders it again from its design: not one whose render failed (the
// batch would fail the same way), nor one an operator flagged or
// cancelled.
func Batchable(state string) bool {
	return state == StateQueued || state == StateRendering || state == StateReady
}
