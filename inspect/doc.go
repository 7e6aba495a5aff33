// Package inspect reads the actual state of a pgseq schema from the
// database into the catalog model: queues, task types, slot groups, and the
// live counts shown as plan context; and the managed state the last apply
// recorded (ReadApplied), which plans compare with to show drift. A schema that does not exist yet reads
// as an empty state. InSnapshot and ReadSnapshot read it in one snapshot, so
// that every live value agrees with every other.
package inspect
