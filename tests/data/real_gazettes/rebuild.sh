#!/bin/sh
# Rebuild the real gazette texts from their sources (see SOURCES.md). Arguments: the bare git
# directories of okfn-brasil/querido-diario-toolbox, okfn-brasil/querido-diario and
# exoonero/extrator (e.g. `git clone --bare`), and for fresh/ that of GVLL/domrj (pdftotext).
set -eu
TOOLBOX=$1 QD=$2 EX=$3
cd "$(dirname "$0")"
show() { git --git-dir="$1" show "$2:$3"; }
show "$TOOLBOX" 8a808b335114cb6f24e27d55186c4c181475d06a examples/38004a4b724a24c1e3c746596acf04efb0c95a58.txt > pratania-2020-10-26.txt
F=processing/tests/gazette/fixtures C=768a93cff9c902e67134f2117884730373a144cf
show "$QD" $C $F/ba_feira_de_santana/1GVUJB392018.txt > feira-2018-09-04.txt
show "$QD" $C $F/ba_feira_de_santana/1P2CXM1042018.txt > feira-2018-04-11.txt
show "$QD" $C $F/ba_feira_de_santana/1X7HTY12112018.txt > feira-2018-11-13.txt
show "$QD" $C $F/ba_feira_de_santana/1CQN162852018.txt > held_out/feira-2018-05-29.txt
show "$QD" $C $F/ba_feira_de_santana/1L509N1332018.txt > held_out/feira-2018-03-14.txt
show "$QD" $C $F/go_goiania.txt | head -n 2418 > goiania-2018-03-14.txt
show "$QD" $C $F/go_goiania_2.txt | head -n 1434 > held_out/goiania-2018-04-20.txt
show "$QD" 47b1cd8598fc869b1bb5150b2655bb594b895619 $F/pr_foz_do_iguacu.txt > /tmp/foz.$$
{ head -n 259 /tmp/foz.$$; tail -n +5955 /tmp/foz.$$; } > foz-2016-02-25.txt
rm /tmp/foz.$$
H=d315ec36951ef28fca37be7a67ee822b759842b7
for d in 2015-09-10 2016-01-04 2016-10-28 2017-10-25 2017-12-28 2018-03-02 2020-04-27; do
    show "$EX" $H test_data/diario-completo-$d-extraido.txt > ama-$d.txt
done
show "$EX" $H test_data/diario-completo-2018-10-17-extraido.txt > held_out/ama-2018-10-17.txt
show "$EX" $H test_data/diario-completo-2019-10-25-extraido.txt | sed -n 4624,7093p > ama-2019-10-25.txt
# APRECE: a prefix of the text, in characters (Python counts them; head -c counts bytes)
cut_chars() { python3 -c "import sys; sys.stdout.write(sys.stdin.read()[:$1])"; }
show "$EX" e02a1e0da4dbce9f8ade6dd471cb4e3cd573ebe4 test_data/ce/diario-completo-2013-08-12-extraido.txt | cut_chars 42786 > aprece-2013-08-12.txt
show "$EX" ec510cd3a81015b8b40bfbc6220ae42b2cb0b9cd test_data/ce/diario-completo-2018-08-17-extraido.txt | cut_chars 41911 > aprece-2018-08-17.txt
show "$EX" 04faf0e71762067c5185a5714b3f4edcb222c96d test_data/ce/diario-completo-2022-06-13-extraido.txt | cut_chars 48325 > held_out/aprece-2022-06-13.txt
# The fresh set (fresh/): a fourth argument, the bare git directory of GVLL/domrj
if [ $# -ge 4 ]; then
    DOMRJ=$4
    for d in 2018-09-28 2019-05-16 2019-09-11 2019-10-15 2020-01-21 2022-10-31; do
        show "$EX" $H test_data/diario-completo-$d-extraido.txt > fresh/ama-$d.txt
    done
    show "$QD" $C $F/rs_porto_alegre.txt > fresh/poa-2015-03-02.txt
    show "$DOMRJ" d49d85337f38deaf55f11eab7685f5f4031214a2 domrj/sample_data/do_sample.pdf > /tmp/rio.$$.pdf
    pdftotext -raw -f 1 -l 12 /tmp/rio.$$.pdf fresh/rio-2017-04-05.txt  # poppler 22.12.0
    rm /tmp/rio.$$.pdf
fi
