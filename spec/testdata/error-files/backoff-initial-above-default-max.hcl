# max is left at its default, 10m.
# want: 5:15: Backoff max less than initial
queue "default" {
  backoff {
    initial = "1h"
  }
}
