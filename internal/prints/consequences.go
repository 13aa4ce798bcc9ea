package prints

import "strings"

// Choice is an action an operator can take on a print, with what it will
// do, in words: the panel's confirmation says this, so that it is never
// more nor less than the action's outcome.
type Choice struct {
	Action string // retry, flag or cancel
	Says   string
}

// Choices are the actions that would change a print of family in status
// and state, each with its consequences (see Action.On): only a failed
// print can be retried, a cancelled one cannot be flagged nor cancelled
// again.
func Choices(family, status, state string) []Choice {
	var out []Choice
	for _, c := range []struct {
		name   string
		action Action
	}{{"retry", Retry()}, {"flag", Flag("")}, {"cancel", Cancel()}} {
		o, err := c.action.On(family, status)
		if err != nil || (state == StateCancelled && c.action.Kind != EventRetried) {
			continue
		}
		out = append(out, Choice{Action: c.name, Says: consequences(family, state, c.action, o)})
	}
	return out
}

// consequences says what outcome o of a does to a print of family in
// state.
func consequences(family, state string, a Action, o Outcome) string {
	var says []string
	switch a.Kind {
	case EventRetried:
		says = append(says, "The print is queued to render again from its design; the client reads "+quote(o.Status)+" until it is ready or fails again.")
	case EventFlagged:
		says = append(says, "The print fails with your reason, which the client reads as its error ("+quote(o.Status)+").")
	case EventCancelled:
		if family == FamilyA {
			says = append(says, "Family A has no cancelled status: the print fails with the error "+quote(CancelledReason)+", which the client reads.")
		} else {
			says = append(says, "The print is cancelled for good: the shop reads "+quote(o.Status)+", and no one can retry it.")
		}
	}
	if o.Drop {
		switch state {
		case StateReady:
			says = append(says, "Its files are deleted: download links already sent stop working.")
		case StateQueued, StateRendering:
			says = append(says, "Its render is stopped.")
		}
	}
	if o.Notify {
		says = append(says, "If the order asked for print files, its store is sent the order_item.print_file.failed webhook.")
	}
	if a.Kind != EventRetried && !Final(family, o.Status) {
		says = append(says, "It can be retried later.")
	}
	return strings.Join(says, " ")
}

func quote(s string) string { return "“" + s + "”" }
