package planner

import (
	"sort"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// object is a pointer to a catalog type that is an Object (*catalog.Queue,
// *catalog.TaskType…), so that diff can take lists of values.
type objectPtr[T any] interface {
	*T
	catalog.Object
}

// pair is one object of a kind as the configuration declares it (want)
// and as the database has it (have); want is nil for an object only the
// database has, have for one only the configuration declares.
type pair[T any, P objectPtr[T]] struct {
	want, have P
}

// diff pairs desired and actual objects of one kind by key, in key order.
// Each pair points to a copy: changes can keep it.
func diff[T any, P objectPtr[T]](desired, actual []T) []pair[T, P] {
	byKey := make(map[string]*pair[T, P], len(desired)+len(actual))
	var keys []string
	at := func(o P) *pair[T, P] {
		k := o.Key()
		p, ok := byKey[k]
		if !ok {
			p = &pair[T, P]{}
			byKey[k] = p
			keys = append(keys, k)
		}
		return p
	}
	for i := range desired {
		o := P(new(T))
		*o = desired[i]
		at(o).want = o
	}
	for i := range actual {
		o := P(new(T))
		*o = actual[i]
		at(o).have = o
	}
	sort.Strings(keys)
	out := make([]pair[T, P], len(keys))
	for i, k := range keys {
		out[i] = *byKey[k]
	}
	return out
}

// change returns the change that makes the database's object the
// configuration's: a create, a delete, or an update naming the attributes
// that differ. same is true (and the change has no action) when the two
// are equal; a kind's planner may still turn that into an update that
// repairs something live values say is broken (update).
func (p pair[T, P]) change() (c plan.Change, same bool) {
	switch {
	case p.have == nil:
		return p.base(plan.Create), false
	case p.want == nil:
		return p.base(plan.Delete), false
	case !catalog.Equal(p.want, p.have):
		return p.update(), false
	}
	return p.base(""), true
}

// update returns an update of the object, naming the attributes that
// differ (none when it only repairs).
func (p pair[T, P]) update() plan.Change {
	c := p.base(plan.Update)
	c.Attributes = catalog.ChangedAttributes(p.have, p.want)
	return c
}

// base returns a change of the object with action, its before and after
// set as the action needs.
func (p pair[T, P]) base(action plan.Action) plan.Change {
	var o P = p.want
	if o == nil {
		o = p.have
	}
	c := plan.Change{Address: Address(o.Kind(), o.Key()), Kind: o.Kind(), Name: o.Key(), Action: action}
	if p.have != nil && action != plan.Create {
		c.Before = p.have
	}
	if p.want != nil && action != plan.Delete {
		c.After = p.want
	}
	return c
}
