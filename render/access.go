package render

import "github.com/pgseq/pgseq/plan"

// accessVerb says what a change does to an access level given to a role.
var accessVerb = map[plan.Action]string{
	plan.Create: "will be granted",
	plan.Update: "will be repaired",
	plan.Delete: "will be revoked",
}

// changeVerb is the header's verb of a change: "will be created", or for
// an access level "will be granted".
func changeVerb(c plan.Change) string {
	if c.Kind == plan.KindAccess {
		return accessVerb[c.Action]
	}
	return actionVerb[c.Action]
}
