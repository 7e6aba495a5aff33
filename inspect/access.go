package inspect

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/catalog"
)

// AccessVersion is the schema version from which pgseq records the access
// levels it granted (migration 008, the grants table).
const AccessVersion = 8

// readAccess adds to s the access levels pgseq granted (s.Access, from the
// grants table) and what each of those roles holds in the schema
// (s.Live.Access).
func readAccess(ctx context.Context, db Querier, schema string, s *catalog.State) error {
	rows, err := db.Query(ctx, query("access_grants", schema))
	if err != nil {
		return fmt.Errorf("reading the access levels granted: %w", err)
	}
	var g catalog.Grant
	_, err = pgx.ForEachRow(rows, []any{&g.Level, &g.Role}, func() error {
		s.Access = append(s.Access, g)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the access levels granted: %w", err)
	}
	catalog.SortGrants(s.Access)
	var roles []string
	seen := map[string]bool{}
	for _, g := range s.Access {
		if !seen[g.Role] {
			seen[g.Role] = true
			roles = append(roles, g.Role)
		}
	}
	return readRoles(ctx, db, schema, roles, s)
}

// readAccessFor adds to s.Live.Access what the roles desired names, and
// pgseq does not manage yet, hold in the schema: an apply that starts
// managing them revokes what their levels do not give.
func readAccessFor(ctx context.Context, db Querier, schema string, desired catalog.State, s *catalog.State) error {
	var roles []string
	seen := map[string]bool{}
	for _, g := range desired.Access {
		if _, known := s.Live.Access[g.Role]; !known && !seen[g.Role] {
			seen[g.Role] = true
			roles = append(roles, g.Role)
		}
	}
	return readRoles(ctx, db, schema, roles, s)
}

// readRoles reads whether each role exists and the privileges it holds in
// the schema into s.Live.Access.
func readRoles(ctx context.Context, db Querier, schema string, roles []string, s *catalog.State) error {
	if len(roles) == 0 {
		return nil
	}
	rows, err := db.Query(ctx, query("access_held", schema), roles, schema)
	if err != nil {
		return fmt.Errorf("reading the privileges of roles: %w", err)
	}
	if s.Live.Access == nil {
		s.Live.Access = map[string]catalog.RoleAccess{}
	}
	var role string
	var exists bool
	var kind, object, privilege *string
	var grantable *bool
	_, err = pgx.ForEachRow(rows, []any{&role, &exists, &kind, &object, &privilege, &grantable}, func() error {
		ra := s.Live.Access[role]
		ra.Exists = exists
		if kind != nil && object != nil && privilege != nil && grantable != nil {
			ra.Held = append(ra.Held, catalog.Privilege{Kind: *kind, Object: *object, Privilege: *privilege, Grantable: *grantable})
		}
		s.Live.Access[role] = ra
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the privileges of roles: %w", err)
	}
	for role, ra := range s.Live.Access {
		catalog.SortPrivileges(ra.Held)
		s.Live.Access[role] = ra
	}
	return nil
}

// AccessProblem is a role the configuration names that cannot be given an
// access level: it does not exist, is a superuser, or owns the schema.
type AccessProblem struct {
	// Role is the role, as the access block names it.
	Role string
	// Summary and Detail describe the problem, for a diagnostic.
	Summary, Detail string
}

// CheckAccess checks the roles grants name, in schema: each must exist,
// not be a superuser (privileges do not restrict one) and not own the
// schema (the owner holds every privilege, and pgseq never revokes its
// own). It returns one problem per role that fails, in role order.
func CheckAccess(ctx context.Context, db Querier, schema string, grants []catalog.Grant) ([]AccessProblem, error) {
	var roles []string
	seen := map[string]bool{}
	for _, g := range grants {
		if !seen[g.Role] {
			seen[g.Role] = true
			roles = append(roles, g.Role)
		}
	}
	if len(roles) == 0 {
		return nil, nil
	}
	rows, err := db.Query(ctx, query("access_check", schema), roles, schema)
	if err != nil {
		return nil, fmt.Errorf("checking the roles of the access block: %w", err)
	}
	var out []AccessProblem
	var role string
	var exists, super, owner bool
	_, err = pgx.ForEachRow(rows, []any{&role, &exists, &super, &owner}, func() error {
		switch {
		case !exists:
			out = append(out, AccessProblem{Role: role, Summary: "Unknown role",
				Detail: fmt.Sprintf("The role %q does not exist in the database. pgseq grants to existing roles and never creates one: create it first (CREATE ROLE %s LOGIN), or remove it from the access block.",
					role, pgx.Identifier{role}.Sanitize())})
		case owner:
			out = append(out, AccessProblem{Role: role, Summary: "Role owns the schema",
				Detail: fmt.Sprintf("The role %q owns the pgseq schema %q (or will, as the role that applies): it holds every privilege there, and an access level would only take some away. Remove it from the access block.",
					role, schema)})
		case super:
			out = append(out, AccessProblem{Role: role, Summary: "Role is a superuser",
				Detail: fmt.Sprintf("The role %q is a superuser: privileges do not restrict it, so an access level means nothing. Name a role without SUPERUSER, or remove it from the access block.",
					role)})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checking the roles of the access block: %w", err)
	}
	return out, nil
}
