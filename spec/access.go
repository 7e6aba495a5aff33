package spec

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// The access block names the database roles that may use the pgseq
// schema, by access level:
//
//	access {
//	  enqueue  = ["app_web"]     # enqueue, enqueue_batch
//	  work     = ["app_worker"]  # run workers: claim, complete, fail, heartbeat…
//	  counters = ["app_web"]     # next_value, reserve, commit_reservation, resolve_key…
//	  read     = ["grafana"]     # read every table (status, dashboards)
//	}
//
// It is one block for the whole configuration, and the levels are
// schema-wide rather than per queue: PostgreSQL grants EXECUTE on a
// function, not on a function called with one queue's name, and a per-queue
// check inside claim would cost every claim a lookup. Keep teams apart with
// separate schemas (--schema).

// accessExample shows an access block, for diagnostics.
const accessExample = `access { work = ["app_worker"] }`

// access decodes the access block.
func (d *decoder) access(b *hclsyntax.Block) {
	if len(b.Labels) > 0 {
		d.Errorf(hcl.RangeBetween(b.LabelRanges[0], b.LabelRanges[len(b.LabelRanges)-1]), "Extraneous label for access",
			"The access block takes no labels: its arguments name the roles of each level, as in %s.", accessExample)
	}
	if d.accessBlock != nil {
		d.Errorf(b.TypeRange, "Duplicate access block",
			"The access block is already declared at %s. A configuration has one access block, which names the roles of every level: merge the two.",
			hcldecode.PosString(*d.accessBlock))
		return
	}
	def := b.DefRange()
	d.accessBlock = &def
	if d.roles == nil {
		d.roles = map[string]hcl.Range{}
	}
	attrs, _, _ := d.Content(b.Body, "access", catalog.Levels, nil, nil)
	for _, level := range catalog.Levels {
		if a := attrs[level]; a != nil {
			d.accessLevel(a, level)
		}
	}
}

// accessLevel decodes the list of roles given one level.
func (d *decoder) accessLevel(a *hclsyntax.Attribute, level string) {
	v, ok := d.Value(a)
	if !ok {
		return
	}
	tuple, isTuple := a.Expr.(*hclsyntax.TupleConsExpr)
	if !isTuple || !(v.Type().IsTupleType() || v.Type().IsListType()) {
		hint := ""
		if v.Type() == cty.String {
			hint = fmt.Sprintf(" Put the role in brackets: %s = [%s].", level, hcldecode.Quote(v.AsString()))
		}
		d.Errorf(a.Expr.Range(), "Incorrect value type",
			"%s must be a list of database role names, such as [\"app_worker\"] or [], not %s.%s", level, hcldecode.TypeName(v.Type()), hint)
		return
	}
	seen := map[string]hcl.Range{}
	for i, e := range tuple.Exprs {
		path := fmt.Sprintf("%s[%d]", level, i)
		ev, diags := e.Value(nil)
		if diags.HasErrors() {
			d.Diags = append(d.Diags, diags...)
			continue
		}
		if ev.IsNull() || ev.Type() != cty.String {
			d.Errorf(e.Range(), "Incorrect value type", "%s must be a role name in quotes, not %s.", path, hcldecode.TypeName(ev.Type()))
			continue
		}
		role := ev.AsString()
		if !catalog.ValidRoleName(role) {
			d.Errorf(e.Range(), "Invalid role name", "%s: %s.", path, catalog.InvalidRoleName(role))
			continue
		}
		if first, dup := seen[role]; dup {
			d.Errorf(e.Range(), "Duplicate role",
				"%s is %s, which is already listed at %s. Each role is listed once per level: remove one.",
				path, hcldecode.Quote(role), hcldecode.PosString(first))
			continue
		}
		seen[role] = e.Range()
		if _, named := d.roles[role]; !named {
			d.roles[role] = e.Range()
		}
		d.state.Access = append(d.state.Access, catalog.Grant{Level: level, Role: role})
	}
}

// AccessDiag returns an error diagnostic about a role the access block
// names, with summary and detail, whose Subject is where the role is first
// named. It is for checks made after parsing, such as whether the role
// exists. The Subject is nil when no level names the role.
func (c *Config) AccessDiag(role, summary, detail string) *hcl.Diagnostic {
	diag := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
	if r, ok := c.Roles[role]; ok {
		diag.Subject = r.Ptr()
	}
	return diag
}

// writeAccess appends the access block of grants (sorted, not empty) to
// body: one argument per level that names roles, in the order of
// catalog.Levels.
func writeAccess(body *hclwrite.Body, grants []catalog.Grant) {
	ab := body.AppendNewBlock("access", nil).Body()
	for _, level := range catalog.Levels {
		var roles []cty.Value
		for _, g := range grants {
			if g.Level == level {
				roles = append(roles, cty.StringVal(g.Role))
			}
		}
		if len(roles) > 0 {
			ab.SetAttributeValue(level, cty.TupleVal(roles))
		}
	}
}
