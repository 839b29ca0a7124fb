set -x
mkdir -p $OUT/simt $OUT/islru $OUT/bal $OUT/mm
( export LD_LIBRARY_PATH=.gpu-carry/i/lib; timeout 150 bash -c 'nproc; cat /proc/loadavg; for i in 1 2 3 4; do for b in before after; do echo "== $b round $i"; taskset -c 3 .gpu-carry/i/$b/bench-vat 8388608 lru islru min ismin; done; done; cat /proc/loadavg' > $OUT/islru/vat-islru.txt 2>&1 ) &
( nvcc -O2 -arch=sm_90 -o /tmp/atomic-chain tools/atomic-chain.cu && timeout 60 /tmp/atomic-chain > $OUT/bal/atomic-chain.txt 2>&1 ) > $OUT/bal/build.txt 2>&1 &
( gcc -O2 -o /tmp/mp tools/matmul-placement.c && cat /sys/kernel/mm/transparent_hugepage/enabled > $OUT/mm/thp.txt && taskset -c 5 timeout 60 /tmp/mp 40 512 2048 16 > $OUT/mm/matmul-placement-4k.csv && taskset -c 5 timeout 40 /tmp/mp 10 512 2048 16 huge > $OUT/mm/matmul-placement-huge.csv ) > $OUT/mm/log.txt 2>&1 &
BEFORE=.gpu-carry/p/before AFTER=.gpu-carry/p/after LIBS=.gpu-carry/p/lib OUT=$OUT/simt LIMIT=260 bash tools/simt-threads-device.sh > $OUT/simt/stdout.txt 2>&1
wait
tail -5 $OUT/islru/vat-islru.txt; cat $OUT/bal/atomic-chain.txt | head -30; tail -3 $OUT/simt/log.txt
