#!/bin/bash
prev=($(head -1 /proc/stat)); while true; do sleep 0.25; cur=($(head -1 /proc/stat)); b=0; t=0; for i in 1 2 3 4 5 6 7 8; do d=$(( ${cur[$i]} - ${prev[$i]} )); t=$((t+d)); if [ $i -ne 4 ] && [ $i -ne 5 ]; then b=$((b+d)); fi; done; echo "$(date +%s.%N | cut -c1-14) $(( t>0 ? 100*b/t : 0 ))"; prev=("${cur[@]}"); done
