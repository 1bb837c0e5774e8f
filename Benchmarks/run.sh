#!/usr/bin/env bash
# TOC extraction benchmark: BookRule vs raw libxml2 (C) vs Python lxml; then regexes: PCRE2 (RegexPattern)
# vs NSRegularExpression; then politeness: elapsed ÷ the time the server asked for (target <= 1.2); then
# JavaScript on a hot field: a TOC whose chapterName ends in @js: vs the same without (target <= 1.5x); then
# Locked vs Synchronization.Mutex (ns per withLock); then `bookrule serve`'s getBookContent of saved chapters
# to 50 keep-alive clients (target p99 < 10 ms); then web fonts: 300 glyphs decoded cold (target <= 1 s).
#
#   Benchmarks/run.sh                 # ITERATIONS=30 by default
#   ITERATIONS=100 Benchmarks/run.sh
#   BENCH_SKIP_SWIFT=1 Benchmarks/run.sh   # don't build/run the Swift side (exits 1)
#   BOOKRULE_BENCH_BIN=path Benchmarks/run.sh  # use this binary, skip `swift build`
#   BENCH_TOC_ONLY=1 Benchmarks/run.sh     # the TOC comparison only (its verdict is the exit status)
#
# Every implementation takes `FILE ENCODING ITERATIONS` and prints one line:
#   <impl> <label> median_ms=<x> min_ms=<y> chapters=<n> checksum=<bytes>
# Target (issue #22): bookrule <= 1.1x libxml2-c, by the median and by the best run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ITERATIONS="${ITERATIONS:-30}"
# Each implementation runs ROUNDS times, interleaved with the others, and its best round counts: on a shared
# 2-core machine the noise between runs is larger than the differences being measured (a neighbour on the
# host doubles a round's median for a second at a time), and five rounds give each side about the same chance
# of a quiet one.
ROUNDS="${ROUNDS:-5}"
CHAPTERS=5000
OUT=Benchmarks/out
BIN=Benchmarks/bin
PY=/usr/bin/python3          # Debian python3 with python3-lxml
CC="${CC:-cc}"
TARGET_RATIO=1.1

mkdir -p "$OUT" "$BIN"

echo "== generating pages" >&2
"$PY" Benchmarks/generate_toc.py "$OUT" "$CHAPTERS" >&2

echo "== compiling C reference" >&2
# shellcheck disable=SC2046
"$CC" -O2 -o "$BIN/toc_libxml2" Benchmarks/c/toc_libxml2.c $(pkg-config --cflags --libs libxml-2.0) -lpthread

SWIFT_BIN=""
if [[ -n "${BOOKRULE_BENCH_BIN:-}" ]]; then
    SWIFT_BIN="$BOOKRULE_BENCH_BIN"
elif [[ "${BENCH_SKIP_SWIFT:-0}" != "1" ]]; then
    echo "== building bookrule-bench (release)" >&2
    if swift build -c release --product bookrule-bench >&2; then
        SWIFT_BIN=.build/release/bookrule-bench
    else
        echo "warning: swift build of bookrule-bench failed" >&2
    fi
fi

RESULTS="$(mktemp)"
SUMMARY="$(mktemp)"
trap 'rm -f "$RESULTS" "$SUMMARY"' EXIT

# run <impl-tag> <cmd...>: keep only the result line that starts with the tag.
run() {
    local tag="$1"; shift
    local out
    out="$("$@" 2>&1)" || echo "warning: $tag exited with status $? ($*)" >&2
    local line
    line="$(printf '%s\n' "$out" | grep -E "^${tag//+/\\+} " | tail -n 1 || true)"
    if [[ -n "$line" ]]; then
        printf '%s\n' "$line" >> "$RESULTS"
        echo "   $line" >&2
    else
        echo "warning: no '$tag' result line from: $*" >&2
        printf '%s\n' "$out" | head -n 5 | sed 's/^/     | /' >&2
    fi
}

for spec in "utf8 UTF-8" "gbk GB18030"; do
    read -r suffix enc <<< "$spec"
    file="$OUT/toc-$CHAPTERS-$suffix.html"
    echo "== $file ($enc), $ROUNDS rounds of $ITERATIONS iterations" >&2
    for _ in $(seq "$ROUNDS"); do
        run libxml2-c "$BIN/toc_libxml2" "$file" "$enc" "$ITERATIONS"
        # The same C with one idle thread beside it: what malloc costs in any process with threads.
        run libxml2-c+thread env TOC_IDLE_THREAD=1 "$BIN/toc_libxml2" "$file" "$enc" "$ITERATIONS"
        run lxml "$PY" Benchmarks/python/toc_lxml.py "$file" "$enc" "$ITERATIONS"
        if [[ -n "$SWIFT_BIN" ]]; then
            run bookrule "$SWIFT_BIN" toc "$file" "$enc" "$ITERATIONS"
        fi
    done
done

echo
awk -v target="$TARGET_RATIO" -v iters="$ITERATIONS" '
    {
        impl = $1; label = $2
        for (i = 3; i <= NF; i++) {
            split($i, kv, "=")
            # Several rounds: keep the best median and the best minimum.
            if (!have[label, impl] || kv[1] !~ /_ms$/ || kv[2] + 0 < v[label, impl, kv[1]] + 0) v[label, impl, kv[1]] = kv[2]
        }
        have[label, impl] = 1
        if (!(label in seen)) { seen[label] = 1; labels[++nl] = label }
    }
    function ratio(label, a, b, key) {
        if (!have[label, a] || !have[label, b] || v[label, b, key] + 0 == 0) return "n/a"
        return sprintf("%.2fx", v[label, a, key] / v[label, b, key])
    }
    END {
        nimpl = split("bookrule libxml2-c libxml2-c+thread lxml", impls, " ")
        printf "TOC benchmark: best of the rounds of %s iterations, median/min of full parse+extract (ms)\n\n", iters
        printf "%-16s %-16s %10s %10s %9s %10s\n", "file", "impl", "median_ms", "min_ms", "chapters", "checksum"
        for (l = 1; l <= nl; l++) {
            label = labels[l]
            for (k = 1; k <= nimpl; k++) {
                impl = impls[k]
                if (have[label, impl])
                    printf "%-16s %-16s %10.3f %10.3f %9s %10s\n", label, impl,
                        v[label, impl, "median_ms"], v[label, impl, "min_ms"],
                        v[label, impl, "chapters"], v[label, impl, "checksum"]
                else
                    printf "%-16s %-16s %10s\n", label, impl, "unavailable"
            }
        }
        print ""
        printf "%-16s %26s %26s %20s\n", "file", "bookrule/libxml2-c median", "bookrule/libxml2-c min", "bookrule/lxml median"
        for (l = 1; l <= nl; l++) {
            label = labels[l]
            r = ratio(label, "bookrule", "libxml2-c", "median_ms")
            rmin = ratio(label, "bookrule", "libxml2-c", "min_ms")
            verdict = ""
            # Both the median and the best run have to be within the target.
            if (r != "n/a") verdict = (r + 0 <= target + 0 && rmin + 0 <= target + 0) ? "  (target <= " target "x: PASS)" : "  (target <= " target "x: FAIL)"
            printf "%-16s %26s %26s %20s%s\n", label, r, rmin,
                ratio(label, "bookrule", "lxml", "median_ms"), verdict
        }
        # For reading the ratios: the C reference in a process with a thread, as bookrule always is.
        print ""
        for (l = 1; l <= nl; l++) {
            label = labels[l]
            if (have[label, "libxml2-c+thread"])
                printf "%-16s libxml2-c+thread/libxml2-c median %s, min %s; bookrule/libxml2-c+thread median %s, min %s\n", label,
                    ratio(label, "libxml2-c+thread", "libxml2-c", "median_ms"), ratio(label, "libxml2-c+thread", "libxml2-c", "min_ms"),
                    ratio(label, "bookrule", "libxml2-c+thread", "median_ms"), ratio(label, "bookrule", "libxml2-c+thread", "min_ms")
        }
        # agreement check on chapter count + checksum
        print ""
        ok = 1
        for (l = 1; l <= nl; l++) {
            label = labels[l]; ref = ""
            for (k = 1; k <= nimpl; k++) {
                impl = impls[k]
                if (!have[label, impl]) continue
                sig = v[label, impl, "chapters"] "/" v[label, impl, "checksum"]
                if (ref == "") { ref = sig; refimpl = impl }
                else if (sig != ref) {
                    printf "WARNING: %s: %s chapters/checksum=%s differs from %s=%s\n", label, impl, sig, refimpl, ref
                    ok = 0
                }
            }
        }
        if (ok) print "all implementations agree on chapters and checksum"
    }
' "$RESULTS" | tee "$SUMMARY"

if ! grep -q '^bookrule ' "$RESULTS"; then
    echo
    echo "Swift benchmark (bookrule-bench) unavailable: no 'bookrule' result line; only libxml2-c and lxml were measured."
    exit 1
fi

if [[ "${BENCH_TOC_ONLY:-0}" == "1" ]]; then
    if grep -q "x: FAIL)" "$SUMMARY"; then exit 1; fi
    exit 0
fi

if [[ -n "$SWIFT_BIN" ]]; then
    echo
    echo "Regex benchmark: PCRE2 through RegexPattern vs NSRegularExpression, same subjects, results checked equal"
    "$SWIFT_BIN" regex "$OUT/toc-$CHAPTERS-utf8.html" "$ITERATIONS"
    echo
    echo "Politeness benchmark: a 1,200-chapter book under 10% random 503 + Retry-After: 2 (virtual clock)"
    "$SWIFT_BIN" politeness 1204
    echo
    echo "JavaScript benchmark: the 5,000-chapter TOC with chapterName '//a/text()@js:…' vs '//a/text()' (target <= 1.5x)"
    "$SWIFT_BIN" script-toc "$OUT/toc-$CHAPTERS-utf8.html" "$ITERATIONS"
    echo
    echo "Lock benchmark: Locked (pthread mutex) vs Synchronization.Mutex, ns per withLock, 1 and 2 threads"
    "$SWIFT_BIN" lock 5000000
    echo
    echo "Studio benchmark: edit to highlight on the 5,000-chapter TOC (server side) vs SourceEngine.toc (target < 100 ms)"
    "$SWIFT_BIN" studio "$OUT/toc-$CHAPTERS-utf8.html" "$ITERATIONS"
    echo
    echo "Serve benchmark: getBookContent of saved chapters, 50 loopback keep-alive clients, 5,000 requests (target p99 < 10 ms)"
    "$SWIFT_BIN" serve-content 50 5000
    echo
    echo "Web-font benchmark: 300 common characters in a re-drawn Hei (WOFF2, Private Use Area) and Ming (TrueType,"
    echo "shuffled) font, decoded cold against the reference index (target: 300 glyphs in <= 1 s; docs/fonts.md)"
    if /usr/bin/python3 -c 'import fontTools' 2>/dev/null; then
        # The first 300 characters, counted as characters whatever the locale.
        common="$(/usr/bin/python3 -c 'import sys; print("".join(dict.fromkeys(sys.argv[1]))[:300])' "$common")"
        common="的一了是不在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称企八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效续施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热助倒育属坐帝限船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素药适波夜省初喜卫源食险待述陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简卡罪判担州静退既衣您宗积余痛检差富灵协角占配征修皮挥胜降阶审沉坚善妈刘读啊超免压银买皇养伊怀执副乱抗犯追帮宣佛岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湾吉减编楚肯测败屋跑梦散温困剑渐封救贵枪缺楼县尚毫移娘朋画班智亦耳恩短掌恐遗固席松秘谢鲁遇康虑幸均销钟诗藏赶剧票损忽巨炮旧端探湖录叶春乡附吸予礼港雨呀板庭妇归睛饭额含顺输摇招婚脱补谓督毒油疗旅泽材灭逐莫笔亡鲜词圣择寻厂睡博勒烟授诺伦岸奥唐卖俄炸载洛健堂旁宫喝借君禁阴园谋宋避抓荣姑孙逃牙束跳顶玉镇雪午练迫爷篇肉嘴馆遍凡础洞卷坦牛宁纸诸训私庄祖丝翻暴森塔默握戏隐熟骨访弱蒙歌店鬼软典欲萨伙遭盘爸扩盖弄雄稳忘亿刺拥徒姆杨齐赛趣曲刀床迎冰虚玩析窗醒妻透购替塞努休虎扬途侵刑绿兄迅套贸毕唯谷轮库迹尤竞街促延震弃甲伟麻川申缓潜闪售灯针哲络抵朱埃抱鼓植纯夏忍页杰筑折郑贝尊吴秀混臣雅振染盛怒舞圆搞狂措姓残秋培迷诚宽宇猛摆梅毁伸摩盟末乃悲拍丁赵"
    /usr/bin/python3 scripts/make-test-font.py --source /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc --chars "$common" \
            --scheme pua --format woff2 --seed 1 --out "$OUT/hei-pua.woff2" --map "$OUT/hei-pua.json" 2>/dev/null &&
        /usr/bin/python3 scripts/make-test-font.py --source /usr/share/fonts/truetype/arphic/uming.ttc --chars "$common" \
            --scheme shuffle --format ttf --seed 2 --out "$OUT/ming-shuffle.ttf" --map "$OUT/ming-shuffle.json" 2>/dev/null &&
        "$SWIFT_BIN" font "$OUT/hei-pua.woff2" "$OUT/hei-pua.json" "$OUT/ming-shuffle.ttf" "$OUT/ming-shuffle.json" | cut -c1-240
    else
        echo "web-font benchmark skipped: fontTools is not installed (scripts/install-deps.sh installs python3-fonttools)"
    fi
    echo
    if command -v chromium >/dev/null 2>&1 || [[ -n "${BOOKRULE_CHROMIUM:-}" ]]; then
        echo "webView benchmark: Chromium's start, and a 500-chapter TOC a page script builds vs the same list as plain HTML"
        "$SWIFT_BIN" webview 500 5
    else
        echo "webView benchmark skipped: Chromium is not installed (apt install chromium)"
    fi
fi
