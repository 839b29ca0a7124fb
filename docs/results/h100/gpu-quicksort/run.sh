#!/bin/bash
# Second device run of issue 13 (after the phase-two race fix): checks, timings, sweep, CUB,
# sanitizer, ncu. $OUT gets log.txt and results.tgz (re-packed after every stage).
set -u
C=.carry-quicksort; GK=$C/gk; CUB=$C/cub-sort; R=/tmp/res; mkdir -p $R
chmod +x $GK $CUB
exec > >(tee $OUT/log.txt) 2>&1
T0=$SECONDS; st () { tar czf $OUT/results.tgz -C $R . 2>/dev/null; echo "== $* (t=$((SECONDS-T0))s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv
Q=sort/gpu-quicksort; DN="uniform gaussian zero sorted bucket staggered reverse few"
D=(); Z=(); for d in $DN; do D+=("$Q:dist=$d"); Z+=("$Q:n=0,dist=$d"); done
V=("$Q:sum=serial" "$Q:sum=faa" "$Q:pivot=median" "$Q:threads=256,maxseq=2048,minsize=512" "$Q:threads=32,maxseq=3,minsize=1" "$Q:threads=1024,maxseq=1,minsize=8192" "$Q:threads=512,maxseq=8192")
st check small; timeout 25 $GK --mode check --seed 7 --n 1,2,15,16,17,255,256,257,2^10,2^16,2^20 --csv $R/check-small.csv "${D[@]}" > $R/check-small.txt 2>&1; echo rc=$?; tail -1 $R/check-small.txt; grep -v "ok  " $R/check-small.txt | head
st check n=0; timeout 5 $GK --mode check --seed 7 --csv $R/check-zero-n.csv "${Z[@]}" > $R/check-zero-n.txt 2>&1; echo rc=$?; tail -1 $R/check-zero-n.txt
st check variants; timeout 20 $GK --mode check --seed 8 --n 1000,4097,2^16,2^20 --csv $R/check-var.csv "${V[@]}" > $R/check-var.txt 2>&1; echo rc=$?; tail -1 $R/check-var.txt; grep -v "ok  " $R/check-var.txt | head
st check 2^24; timeout 20 $GK --mode check --seed 9 --n 2^24 --csv $R/check-24.csv "${D[@]}" > $R/check-24.txt 2>&1; echo rc=$?; tail -1 $R/check-24.txt
st time dists; timeout 45 $GK --mode time --reps 5 --seed 10 --n 2^20,2^24,2^26 --csv $R/time-dist.csv "${D[@]}" > $R/time-dist.txt 2>&1; echo rc=$?; grep -v "^gpu-kernels" $R/time-dist.txt
timeout 5 $GK --mode time --reps 5 --seed 10 --n 2^10,2^16 --csv $R/time-small.csv $Q:dist=uniform $Q:dist=zero > $R/time-small.txt 2>&1
st sweep 2^26; S=(); for t in 128 256 512; do for m in 512 8192 32768; do S+=("$Q:threads=$t,maxseq=$m"); done; done; S+=("$Q:threads=1024,maxseq=8192" "$Q:threads=512,maxseq=8192,minsize=512" "$Q:threads=512,maxseq=8192,minsize=1024")
timeout 50 $GK --mode time --reps 5 --seed 12 --n 2^26 --csv $R/sweep-26.csv "${S[@]}" > $R/sweep-26.txt 2>&1; echo rc=$?; grep -v "^gpu-kernels" $R/sweep-26.txt
st sums; timeout 15 $GK --mode time --reps 5 --seed 13 --n 2^20,2^24 --csv $R/time-sum.csv $Q:sum=scan $Q:sum=serial $Q:sum=faa $Q:pivot=median > $R/time-sum.txt 2>&1; echo rc=$?; grep -v "^gpu-kernels" $R/time-sum.txt
st cub; timeout 15 $CUB 20 24 26 28 | tee $R/cub.txt
st time 2^28; timeout 45 $GK --mode time --reps 3 --seed 11 --n 2^28 --csv $R/time-28.csv $Q:dist=uniform $Q:threads=512,maxseq=8192 $Q:dist=zero > $R/time-28.txt 2>&1; echo rc=$?; grep -v "^gpu-kernels" $R/time-28.txt
st sanitizer; SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer)
timeout 15 $SAN --tool memcheck --leak-check no $GK --mode check --seed 14 --n 1000,4097,70000 $Q:dist=uniform $Q:dist=few $Q:sum=faa $Q:pivot=median > $R/memcheck.txt 2>&1; echo memcheck rc=$?; tail -2 $R/memcheck.txt
timeout 15 $SAN --tool racecheck $GK --mode check --seed 15 --n 1000,4097 $Q:dist=uniform $Q:sum=faa $Q:sum=serial $Q:pivot=median > $R/racecheck.txt 2>&1; echo racecheck rc=$?; tail -2 $R/racecheck.txt
st ncu; NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_branch.sum,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 20 $NCU --clock-control none --metrics $M --csv $GK --mode profile --seed 16 --n 2^20 $Q:dist=uniform $Q:sum=faa $Q:dist=zero > $R/ncu.csv 2>$R/ncu-err.txt; echo ncu rc=$?
st pack; ls -la $R
