# Draws vat-models.png and vat-fig21.png from vat-models.dat: run `gnuplot vat-models.gp` in this directory.
set datafile missing "?"
set grid
set logscale xy
set terminal pngcairo size 1500,360 font "sans,9"
set output 'vat-models.png'
set multiplot layout 1,5 title "AMD EPYC: predicted (leave one algorithm out) against measured ns per element"
set key off
set xlabel "measured ns / element"
set ylabel "predicted"
set title "ram (LOAO R^2 0.218)"
plot x with lines lc rgb "black", 'vat-models.dat' index 0 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 1 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 2 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 3 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 4 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 5 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 6 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 7 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 8 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 9 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 10 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 11 using 2:3 with points pt 7 ps 0.5, 'vat-models.dat' index 12 using 2:3 with points pt 7 ps 0.5
set title "vat (LOAO R^2 0.477)"
plot x with lines lc rgb "black", 'vat-models.dat' index 0 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 1 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 2 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 3 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 4 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 5 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 6 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 7 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 8 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 9 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 10 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 11 using 2:4 with points pt 7 ps 0.5, 'vat-models.dat' index 12 using 2:4 with points pt 7 ps 0.5
set title "em (LOAO R^2 0.421)"
plot x with lines lc rgb "black", 'vat-models.dat' index 0 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 1 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 2 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 3 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 4 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 5 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 6 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 7 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 8 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 9 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 10 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 11 using 2:5 with points pt 7 ps 0.5, 'vat-models.dat' index 12 using 2:5 with points pt 7 ps 0.5
set title "vat+em (LOAO R^2 0.540)"
plot x with lines lc rgb "black", 'vat-models.dat' index 0 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 1 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 2 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 3 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 4 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 5 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 6 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 7 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 8 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 9 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 10 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 11 using 2:6 with points pt 7 ps 0.5, 'vat-models.dat' index 12 using 2:6 with points pt 7 ps 0.5
set title "hierarchy (LOAO R^2 -4.577)"
plot x with lines lc rgb "black", 'vat-models.dat' index 0 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 1 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 2 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 3 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 4 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 5 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 6 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 7 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 8 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 9 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 10 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 11 using 2:7 with points pt 7 ps 0.5, 'vat-models.dat' index 12 using 2:7 with points pt 7 ps 0.5
unset multiplot
unset logscale
set logscale y
set terminal pngcairo size 2100,380 font "sans,9"
set output 'vat-fig21.png'
set multiplot layout 1,7 title "AMD EPYC: time per element against n (the thesis's Fig. 2.1), points measured, lines each model's leave-one-algorithm-out prediction"
set key top left font ",7"
set xlabel "log2 n"
set ylabel "ns / element"
set title "scan/seq"
plot 'vat-models.dat' index 0 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 0 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 0 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 0 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 0 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 0 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
set title "scan/random"
plot 'vat-models.dat' index 1 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 1 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 1 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 1 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 1 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 1 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
set title "permute/fisher-yates"
plot 'vat-models.dat' index 2 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 2 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 2 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 2 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 2 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 2 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
set title "binsearch/sorted"
plot 'vat-models.dat' index 3 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 3 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 3 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 3 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 3 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 3 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
set title "heap/heapify"
plot 'vat-models.dat' index 5 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 5 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 5 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 5 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 5 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 5 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
set title "heap/sort"
plot 'vat-models.dat' index 6 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 6 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 6 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 6 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 6 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 6 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
set title "quicksort/intro"
plot 'vat-models.dat' index 7 using 1:2 with points pt 7 ps 0.6 lc rgb "black" title "measured", '' index 7 using 1:3 with lines lw 1.5 lc rgb "#7f7f7f" title "ram", '' index 7 using 1:4 with lines lw 1.5 lc rgb "#d62728" title "vat", '' index 7 using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "em", '' index 7 using 1:6 with lines lw 1.5 lc rgb "#9467bd" title "vat+em", '' index 7 using 1:7 with lines lw 1.5 lc rgb "#2ca02c" title "hierarchy"
unset multiplot
