find .gpu-carry -name "*.xz" -exec xz -d {} +; chmod +x .gpu-carry/c/bench-*
mkdir -p $OUT/cache $OUT/bal
( ROUNDS=2 BEFORE=.gpu-carry/c AFTER=.gpu-carry/c LIBS=.gpu-carry/c/lib OUT=$OUT/cache timeout 200 bash tools/cache-rows-device.sh > $OUT/cache/stdout.txt 2>&1 ) &
OUT=$OUT/bal timeout 420 bash tools/balance-ncu.sh > $OUT/bal/stdout.txt 2>&1
wait
tail -8 $OUT/cache/log.txt; tail -15 $OUT/bal/log.txt
