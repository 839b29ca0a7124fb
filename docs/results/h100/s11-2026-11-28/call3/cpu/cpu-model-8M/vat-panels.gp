set multiplot layout 4,4 title "VAT experiment on Intel(R) Xeon(R) Processor: normalized time (ns per RAM operation) against log2 n; points measured (minimum of repetitions), curves fitted" font ",11"
set datafile missing "?"
set grid
set key top left font ",7" samplen 2
set xlabel "log2 n" offset 0,0.7
set ylabel "ns / op" offset 1.5,0
set yrange [0:*]
set title "scan/seq" font ",10"
plot 'vat-plot.dat' index 0 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 0 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 0 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "scan/random" font ",10"
plot 'vat-plot.dat' index 1 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 1 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 1 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "permute/fisher-yates" font ",10"
plot 'vat-plot.dat' index 2 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 2 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 2 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "binsearch/sorted" font ",10"
plot 'vat-plot.dat' index 3 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 3 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 3 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "binsearch/veb" font ",10"
plot 'vat-plot.dat' index 4 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 4 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 4 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "heap/heapify" font ",10"
plot 'vat-plot.dat' index 5 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 5 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 5 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "heap/sort" font ",10"
plot 'vat-plot.dat' index 6 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 6 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 6 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "quicksort/intro" font ",10"
plot 'vat-plot.dat' index 7 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 7 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 7 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "mergesort/bottom-up" font ",10"
plot 'vat-plot.dat' index 8 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 8 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 8 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "transpose/rows" font ",10"
plot 'vat-plot.dat' index 9 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 9 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 9 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "transpose/recursive" font ",10"
plot 'vat-plot.dat' index 10 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 10 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 10 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "matmul/naive" font ",10"
plot 'vat-plot.dat' index 11 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 11 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 11 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
set title "matmul/recursive" font ",10"
plot 'vat-plot.dat' index 12 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", \
     '' index 12 using 1:3 with lines lw 2 lc rgb "#d62728" title "VAT (W=1638)", \
     '' index 12 using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "EM (ideal caches)"
unset multiplot
