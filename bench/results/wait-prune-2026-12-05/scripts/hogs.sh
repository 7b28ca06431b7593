start_hogs(){ local h; HOGS=(); for h in 1 2 3 4 5 6; do python3 -c 'while True: pass' & HOGS+=($!); done; }
stop_hogs(){ kill "${HOGS[@]}" 2>/dev/null; wait "${HOGS[@]}" 2>/dev/null; }
