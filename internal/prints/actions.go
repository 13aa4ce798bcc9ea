package prints

import (
	"fmt"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
)

// Action is an operator's action on a print, as its history records it.
type Action struct {
	// Kind is the history's event: EventRetried, EventFlagged or
	// EventCancelled.
	Kind string
	// Reason is a flag's, which the client reads as the print's error.
	Reason *string
}

// Retry renders a failed print again.
func Retry() Action { return Action{Kind: EventRetried} }

// Flag fails a print with the operator's reason.
func Flag(reason string) Action { return Action{Kind: EventFlagged, Reason: &reason} }

// Cancel cancels a print: Family B's for good; Family A's, whose family has
// no cancelled status, fails with CancelledReason.
func Cancel() Action { return Action{Kind: EventCancelled} }

// CancelledReason is a cancelled Family A print's error: the client reads
// processingfailed with this.
const CancelledReason = "cancelled by the print shop"

// Outcome is what an action makes of a print. Whatever the action, the
// print's files and the job that owned it are no longer its own: its
// store clears them, and writes the outcome, with the action's event, in
// one transaction.
type Outcome struct {
	// Status is the print's new status, in its family's words.
	Status string
	// Error is its new error; nil for none.
	Error *string
	// Drop says the print's pending render stops and its files go (see
	// renderjobs.Cleanup's DropItem and DropShop).
	Drop bool
	// Render says a new render is queued, whose job then owns the print.
	Render bool
	// Notify says the print's store hears of its failure (a Family A
	// item's, when its order asked for print files).
	Notify bool
	// Stop is the action the print's store keeps with it (see State):
	// a flag's or a cancel's; none for a retry, which clears it.
	Stop Stop
}

// On is the outcome of a on a print of family (FamilyA or FamilyB) in
// status (in the family's words), or apierr.Precondition when the status
// does not allow the action: only a failed print can be retried, and a
// cancelled Family B print is final.
func (a Action) On(family, status string) (Outcome, error) {
	if family == FamilyA {
		return a.onItem(status)
	}
	return a.onShop(status)
}

func (a Action) onItem(status string) (Outcome, error) {
	switch a.Kind {
	case EventRetried:
		if status != orders.PrintProcessingFailed {
			return Outcome{}, notFailed(status)
		}
		return Outcome{Status: orders.PrintReceived, Drop: true, Render: true}, nil
	case EventFlagged:
		return Outcome{Status: orders.PrintProcessingFailed, Error: a.Reason, Drop: true, Notify: true, Stop: StopFlagged}, nil
	case EventCancelled:
		reason := CancelledReason
		return Outcome{Status: orders.PrintProcessingFailed, Error: &reason, Drop: true, Notify: true, Stop: StopCancelled}, nil
	}
	return Outcome{}, unknown(a)
}

// onShop: a failed shop print has no files and no pending render (its
// failure removed them), so a retry has nothing to drop.
func (a Action) onShop(status string) (Outcome, error) {
	if a.Kind == EventRetried {
		if status != shop.PrintFailed {
			return Outcome{}, notFailed(status)
		}
		return Outcome{Status: shop.PrintProcessing, Render: true}, nil
	}
	if Final(FamilyB, status) {
		return Outcome{}, apierr.Precondition("the print is cancelled, for good")
	}
	switch a.Kind {
	case EventFlagged:
		return Outcome{Status: shop.PrintFailed, Error: a.Reason, Drop: true, Stop: StopFlagged}, nil
	case EventCancelled:
		return Outcome{Status: shop.PrintCancelled, Drop: true, Stop: StopCancelled}, nil
	}
	return Outcome{}, unknown(a)
}

// unknown refuses an action made other than by Retry, Flag or Cancel.
func unknown(a Action) error { return fmt.Errorf("prints: no action %q", a.Kind) }

func notFailed(status string) error {
	return apierr.Precondition("only a failed print can be retried; this one is %s", status)
}

// Final reports whether a print of family in status is final: a cancelled
// Family B print, which no action changes any more.
func Final(family, status string) bool { return family == FamilyB && status == shop.PrintCancelled }
