#!/bin/sh
# Debian's Chromium for the e2e specs when they run as root (CI): as root Chromium raises its display
# threads to nice -8, ahead of everything that runs beside it (the vitest lane, the specs' own servers),
# which starved them on two cores. Without CAP_SYS_NICE it takes its share like every other process.
exec setpriv --bounding-set -sys_nice --inh-caps -sys_nice /usr/bin/chromium "$@"
