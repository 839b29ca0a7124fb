# Draws vat.png and vat.svg from vat-plot.dat and vat-huge.dat: run `gnuplot vat.gp` in this directory.
set terminal pngcairo size 1680,1320 font "sans,9"
set output 'vat.png'
load 'vat-panels.gp'
set terminal svg size 1680,1320 font "sans,9"
set output 'vat.svg'
load 'vat-panels.gp'
unset output
reset
load 'vat-models.gp'
