find .gpu-carry -name "*.xz" -exec xz -d {} +; chmod +x .gpu-carry/p/before/* .gpu-carry/m/*
mkdir -p $OUT/simt $OUT/sweep
BEFORE=.gpu-carry/p/before AFTER=.gpu-carry/m LIBS=.gpu-carry/p/lib OUT=$OUT/simt LIMIT=170 bash tools/simt-threads-device.sh > $OUT/simt/stdout.txt 2>&1
for v in p/before m; do echo "== $v"; THREADS="1 4 16" N=32k..256k LD_LIBRARY_PATH=.gpu-carry/p/lib timeout 190 tools/sweep-speedup.sh .gpu-carry/$v/models; done > $OUT/sweep/sweep-speedup.txt 2>&1
grep -E 'by the wall clock' $OUT/simt/log.txt | head -12; cat $OUT/sweep/sweep-speedup.txt | tail -30
