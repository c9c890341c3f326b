# SPDX-License-Identifier: BSD-3-Clause
"""unic-plot (apps/plot/unic-plot) on the illustrative reports of
tests/plot/fixtures: the figures have one line per configuration and are
written as real PNG and SVG files, the CPU of a step is the arithmetic
docs/plots.md states, malformed input is refused with one line naming the
file and the key, and sample-cpu samples a busy process.  Run by meson in
the unit suite; by hand: cd tests/plot && python3 -m unittest -v test_plot
"""
import importlib.machinery
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, 'fixtures')
SCRIPT = os.path.join(HERE, '..', '..', 'apps', 'plot', 'unic-plot')


def _load():
    loader = importlib.machinery.SourceFileLoader('unic_plot', SCRIPT)
    spec = importlib.util.spec_from_loader('unic_plot', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


up = _load()


def fx(name):
    return os.path.join(FIX, name)


def run(*args):
    """unic-plot ARGS as a process: (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def labels(ax):
    return [ln.get_label() for ln in ax.get_lines()]


class Sweep(unittest.TestCase):
    def setUp(self):
        self.sweeps = []
        for name in ('poll', 'hybrid'):
            sw = up.load_sweep(fx(name + '.json'))
            up.attach_cpu(sw, fx(name + '.jsonl'))
            self.sweeps.append(sw)
        self.figs = up.sweep_figures(self.sweeps)

    def tearDown(self):
        import matplotlib.pyplot as plt
        plt.close('all')

    def test_every_figure_is_made(self):
        self.assertEqual(sorted(self.figs), ['cpu', 'latency', 'loss', 'sweep', 'throughput'])

    def test_throughput_has_one_line_per_configuration_and_the_offered_diagonal(self):
        ax = self.figs['throughput'].axes[0]
        self.assertEqual(labels(ax), ['offered (no loss)', 'poll (illustrative)', 'hybrid (illustrative)'])
        x, y = ax.get_lines()[2].get_data()
        self.assertEqual(list(x), [1000, 10000, 100000, 1000000, 3000000])
        self.assertEqual(y[-1], 2964000.0)

    def test_loss_is_drawn_in_percent_of_frames_sent(self):
        ax = self.figs['loss'].axes[0]
        self.assertEqual(labels(ax), ['poll (illustrative)', 'hybrid (illustrative)'])
        self.assertAlmostEqual(ax.get_lines()[1].get_ydata()[-1], 1.2)
        self.assertIn('%', ax.get_ylabel())

    def test_latency_has_p50_and_p99_per_configuration(self):
        ax = self.figs['latency'].axes[0]
        self.assertEqual(labels(ax), ['poll (illustrative) p50', 'poll (illustrative) p99',
                                     'hybrid (illustrative) p50', 'hybrid (illustrative) p99'])
        self.assertEqual(list(ax.get_lines()[3].get_ydata()), [28.0, 24.0, 15.5, 12.0, 33.0])
        self.assertIn('µs', ax.get_ylabel())
        self.assertIn('software timestamps', ax.get_title())

    def test_cpu_per_step_follows_the_samples(self):
        ax = self.figs['cpu'].axes[0]
        self.assertEqual(labels(ax), ['poll (illustrative)', 'hybrid (illustrative)'])
        # The fixture's samples were made at 1.8, 6.5, 31, 97.5, 100 % in
        # the hybrid steps.
        for got, want in zip(ax.get_lines()[1].get_ydata(), [1.8, 6.5, 31.0, 97.5, 100.0]):
            self.assertAlmostEqual(got, want, delta=0.5)

    def test_loads_spanning_decades_get_a_log_axis_unless_told(self):
        self.assertEqual(self.figs['cpu'].axes[0].get_xscale(), 'log')
        import matplotlib.pyplot as plt
        plt.close('all')
        figs = up.sweep_figures(self.sweeps, log_x='no')
        self.assertEqual(figs['cpu'].axes[0].get_xscale(), 'linear')

    def test_the_overview_has_a_panel_per_figure(self):
        self.assertEqual([a.get_title() for a in self.figs['sweep'].axes],
                         ['Throughput', 'Loss', 'Latency, software timestamps', 'Forwarder CPU'])

    def test_without_samples_there_is_no_cpu_figure(self):
        sw = up.load_sweep(fx('poll.json'), label='no samples')
        figs = up.sweep_figures([sw])
        self.assertNotIn('cpu', figs)
        self.assertEqual(len(figs['sweep'].axes), 3)

    def test_label_option_overrides_the_report(self):
        self.assertEqual(up.load_sweep(fx('poll.json'), label='DPDK l2fwd').label, 'DPDK l2fwd')
        self.assertEqual(self.sweeps[0].label, 'poll (illustrative)')


class CpuFromTheReport(unittest.TestCase):
    """A report whose steps carry cpu_pct (a median over rounds written by
    tests/bench/headline-host) is drawn without samples; its idle_cpu_pct
    is a marker apart, left of the lowest load."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='unic-plot-cpu-')
        with open(fx('hybrid.json')) as f:
            self.doc = json.load(f)
        for st, cpu in zip(self.doc['steps'], [0.5, 2.0, None, 40.0, 99.0]):
            st['cpu_pct'] = cpu
        self.doc['idle_cpu_pct'] = 0.25

    def tearDown(self):
        import matplotlib.pyplot as plt
        plt.close('all')
        shutil.rmtree(self.tmp)

    def write(self, doc):
        p = os.path.join(self.tmp, 'median.json')
        with open(p, 'w') as f:
            json.dump(doc, f)
        return p

    def test_the_steps_cpu_pct_is_the_cpu_line_and_null_is_no_point(self):
        sw = up.load_sweep(self.write(self.doc), label='median')
        ax = up.sweep_figures([sw])['cpu'].axes[0]
        line = [ln for ln in ax.get_lines() if ln.get_label() == 'median'][0]
        x, y = line.get_data()
        self.assertEqual(list(x), [1000, 10000, 1000000, 3000000])
        self.assertEqual(list(y), [0.5, 2.0, 40.0, 99.0])

    def test_idle_is_a_marker_left_of_the_lowest_load_not_joined_to_the_line(self):
        sw = up.load_sweep(self.write(self.doc), label='median')
        ax = up.sweep_figures([sw])['cpu'].axes[0]
        idle = [ln for ln in ax.get_lines() if ln.get_label() == '_idle median']
        self.assertEqual(len(idle), 1)
        x, y = idle[0].get_data()
        self.assertEqual(list(y), [0.25])
        self.assertLess(x[0], 1000)
        self.assertEqual(idle[0].get_linestyle(), 'None')
        self.assertIn('idle', [t.get_text() for t in ax.texts])
        self.assertNotIn('_idle median', [t.get_text() for t in ax.get_legend().get_texts()])

    def test_samples_given_for_it_take_the_place_of_cpu_pct(self):
        sw = up.load_sweep(self.write(self.doc))
        up.attach_cpu(sw, fx('hybrid.jsonl'))
        self.assertAlmostEqual(sw.cpu[0], 1.8, delta=0.5)

    def test_without_cpu_pct_or_idle_nothing_changes(self):
        sw = up.load_sweep(fx('hybrid.json'))
        self.assertIsNone(sw.cpu)
        self.assertIsNone(sw.idle_cpu)

    def test_cpu_pct_on_some_steps_only_is_refused(self):
        del self.doc['steps'][3]['cpu_pct']
        p = self.write(self.doc)
        rc, so, se = run('--sweep', p, '--out', os.path.join(self.tmp, 'out'))
        self.assertEqual(rc, 1, se)
        self.assertIn('steps[3]: missing key "cpu_pct"', se)

    def test_negative_or_non_numeric_cpu_is_refused(self):
        for key, where, bad in (('cpu_pct', 'steps[1]', -1), ('cpu_pct', 'steps[1]', 'high'),
                                ('idle_cpu_pct', None, -3)):
            doc = json.loads(json.dumps(self.doc))
            if where:
                doc['steps'][1][key] = bad
            else:
                doc[key] = bad
            p = self.write(doc)
            rc, so, se = run('--sweep', p, '--out', os.path.join(self.tmp, 'out'))
            self.assertEqual(rc, 1, se)
            self.assertIn('"%s"' % key, se)
            self.assertEqual(len(se.strip().splitlines()), 1, se)


class Rounds(unittest.TestCase):
    """Sweeps with one label are rounds of a configuration: one line, the
    median per offered load of every figure, CPU included."""

    def rounds(self):
        out = []
        for k, name in enumerate(('poll', 'hybrid', 'poll')):
            sw = up.load_sweep(fx(name + '.json'), label='both')
            up.attach_cpu(sw, fx(name + '.jsonl'))
            # the third round: every figure 10 % above the first's
            if k == 2:
                for s in sw.steps:
                    s['achieved_pps'] *= 1.1
                    s['latency_us'] = {p: v * 1.1 for p, v in s['latency_us'].items()}
                sw.cpu = [c * 1.1 for c in sw.cpu]
            out.append(sw)
        return out

    def test_rounds_of_one_label_are_one_line_of_medians(self):
        rs = self.rounds()
        merged = up.merge_rounds(rs)
        self.assertEqual(len(merged), 1)
        m = merged[0]
        self.assertEqual(m.label, 'both (median of 3)')
        self.assertEqual([s['offered_pps'] for s in m.steps], [s['offered_pps'] for s in rs[0].steps])
        for i, s in enumerate(m.steps):
            self.assertEqual(s['rounds'], 3)
            want = sorted(r.steps[i]['achieved_pps'] for r in rs)[1]
            self.assertAlmostEqual(s['achieved_pps'], want)
            want = sorted(r.steps[i]['latency_us']['p99'] for r in rs)[1]
            self.assertAlmostEqual(s['latency_us']['p99'], want)
            self.assertAlmostEqual(m.cpu[i], sorted(r.cpu[i] for r in rs)[1])
        figs = up.sweep_figures(merged)
        self.assertEqual(labels(figs['cpu'].axes[0]), ['both (median of 3)'])
        self.assertEqual(list(figs['cpu'].axes[0].get_lines()[0].get_ydata()), m.cpu)

    def test_a_load_in_some_rounds_only_is_the_median_of_those(self):
        rs = self.rounds()[:2]
        del rs[1].steps[0]
        rs[1].cpu = rs[1].cpu[1:]
        m = up.merge_rounds(rs)[0]
        self.assertEqual(m.steps[0]['rounds'], 1)
        self.assertEqual(m.steps[0]['achieved_pps'], rs[0].steps[0]['achieved_pps'])
        self.assertEqual(m.cpu[0], rs[0].cpu[0])
        self.assertAlmostEqual(m.cpu[1], (rs[0].cpu[1] + rs[1].cpu[0]) / 2)

    def test_many_labels_wrap_the_overview_title(self):
        sws = [up.load_sweep(fx('poll.json'), label='a rather long configuration label %d' % i)
               for i in range(6)]
        title = up.sweep_figures(sws)['sweep']._suptitle.get_text()
        self.assertIn('\n', title)
        self.assertTrue(all(len(line) <= 150 for line in title.split('\n')))
        for i in range(6):
            self.assertIn('label %d' % i, title.replace('\n', ' '))

    def test_different_labels_stay_apart(self):
        a = up.load_sweep(fx('poll.json'))
        b = up.load_sweep(fx('hybrid.json'))
        self.assertEqual(up.merge_rounds([a, b]), [a, b])

    def test_the_command_line_merges_rounds(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = run('--sweep', fx('poll.json'), '--samples', fx('poll.jsonl'), '--label', 'x',
                               '--sweep', fx('hybrid.json'), '--samples', fx('hybrid.jsonl'), '--label', 'x',
                               '--format', 'svg', '--out', os.path.join(d, 'r'))
            self.assertEqual(rc, 0, err)
            svg = open(os.path.join(d, 'r-cpu.svg')).read()
            self.assertIn('x (median of 2)', svg)


class Idle(unittest.TestCase):
    """A report's "idle" window: the forwarder's CPU without traffic, from
    the samples inside it, drawn left of the lowest load."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='unic-plot-idle-')
        with open(fx('hybrid.json')) as f:
            doc = json.load(f)
        # the fixture's samples at 999.0, 999.5 and 1000.0 precede step 0
        doc['idle'] = {'start_time': 1764859999.0, 'end_time': 1764860000.0}
        self.path = os.path.join(self.tmp, 'idle.json')
        with open(self.path, 'w') as f:
            json.dump(doc, f)
        samples = up.load_samples(fx('hybrid.jsonl'))
        inside = [c for t, c in samples if 1764859999.0 <= t <= 1764860000.0]
        self.want = 100.0 * (inside[-1] - inside[0]) / 1.0

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_the_idle_cpu_is_drawn_left_of_the_lowest_load(self):
        sw = up.load_sweep(self.path)
        up.attach_cpu(sw, fx('hybrid.jsonl'))
        self.assertAlmostEqual(sw.idle_cpu, self.want)
        ax = up.sweep_figures([sw])['cpu'].axes[0]
        idle = [ln for ln in ax.get_lines() if ln.get_label().startswith('_idle')]
        self.assertEqual(len(idle), 1)
        self.assertEqual(list(idle[0].get_xdata())[0], 1000 / 4)   # log axis: a quarter of 1 kpps
        self.assertAlmostEqual(list(idle[0].get_ydata())[0], self.want)
        self.assertIn('idle', [t.get_text() for t in ax.texts])
        self.assertEqual(labels(ax)[0], 'hybrid (illustrative)')   # the legend is the sweep's

    def test_rounds_give_the_median_idle_cpu(self):
        rs = []
        for k in range(3):
            sw = up.load_sweep(self.path, label='x')
            up.attach_cpu(sw, fx('hybrid.jsonl'))
            sw.idle_cpu *= (1, 3, 2)[k]
            rs.append(sw)
        self.assertAlmostEqual(up.merge_rounds(rs)[0].idle_cpu, 2 * self.want)

    def test_without_an_idle_window_there_is_no_idle_point(self):
        sw = up.load_sweep(fx('hybrid.json'))
        up.attach_cpu(sw, fx('hybrid.jsonl'))
        self.assertIsNone(sw.idle_cpu)
        ax = up.sweep_figures([sw])['cpu'].axes[0]
        self.assertFalse([ln for ln in ax.get_lines() if ln.get_label().startswith('_idle')])

    def test_a_backwards_idle_window_is_refused(self):
        with open(self.path) as f:
            doc = json.load(f)
        doc['idle'] = {'start_time': 10.0, 'end_time': 9.0}
        with open(self.path, 'w') as f:
            json.dump(doc, f)
        rc, so, se = run('--sweep', self.path, '--out', os.path.join(self.tmp, 'x'))
        self.assertEqual(rc, 1)
        self.assertIn('idle: key "end_time"', se)
        self.assertNotIn('Traceback', se)


class StepCpu(unittest.TestCase):
    # Samples (time, cpu_seconds) and a step [10.2, 11.5]: inside it are the
    # samples at 10.5 (1.2 s) and 11.0 (1.45 s), so 100 * 0.25 / 0.5 = 50 %.
    SAMPLES = [(10.0, 1.0), (10.5, 1.2), (11.0, 1.45), (12.0, 1.5)]

    def test_cpu_of_a_step_is_the_first_and_last_sample_inside_it(self):
        self.assertAlmostEqual(up.step_cpu(self.SAMPLES, 10.2, 11.5), 50.0)

    def test_samples_on_the_edges_count_as_inside(self):
        # 10.0 .. 12.0: 100 * 0.5 / 2.0 = 25 %
        self.assertAlmostEqual(up.step_cpu(self.SAMPLES, 10.0, 12.0), 25.0)

    def test_a_step_with_one_sample_has_no_figure(self):
        self.assertTrue(math.isnan(up.step_cpu(self.SAMPLES, 10.4, 10.9)))

    def test_several_threads_add_up_past_one_core(self):
        self.assertAlmostEqual(up.step_cpu([(0.0, 0.0), (1.0, 1.5)], 0.0, 1.0), 150.0)

    def test_samples_of_other_commands_are_skipped(self):
        s = up.load_samples(fx('hybrid.jsonl'))
        with open(fx('hybrid.jsonl')) as f:
            lines = f.readlines()
        cpu_lines = sum('"/proc/cpu"' in line for line in lines)
        self.assertEqual(len(s), cpu_lines)
        self.assertLess(cpu_lines, len(lines))


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='unic-plot-test-')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def check_png_svg(self, paths):
        for p in paths:
            self.assertTrue(os.path.isfile(p), p)
            with open(p, 'rb') as f:
                data = f.read()
            if p.endswith('.png'):
                self.assertEqual(data[:8], b'\x89PNG\r\n\x1a\n', p)
                self.assertGreater(len(data), 10000, p)
            else:
                root = ET.fromstring(data)
                self.assertEqual(root.tag, '{http://www.w3.org/2000/svg}svg', p)
                paths_in = root.findall('.//{http://www.w3.org/2000/svg}path')
                self.assertGreater(len(paths_in), 10, p)

    def test_sweeps_and_a_search_write_png_and_svg_of_each_figure(self):
        out = os.path.join(self.tmp, 'fig', 'headline')
        rc, so, se = run('--sweep', fx('poll.json'), '--samples', fx('poll.jsonl'),
                         '--sweep', fx('hybrid.json'), '--samples', fx('hybrid.jsonl'),
                         '--rfc2544', fx('rfc2544-hybrid.json'), '--out', out)
        self.assertEqual(rc, 0, se)
        want = ['%s-%s.%s' % (out, n, e)
                for n in ('throughput', 'loss', 'latency', 'cpu', 'sweep', 'rfc2544-rate', 'rfc2544-latency')
                for e in ('png', 'svg')]
        self.assertEqual(so.split(), want)
        self.check_png_svg(want)

    def test_demo_series_writes_png_and_svg(self):
        out = os.path.join(self.tmp, 'demo')
        rc, so, se = run('demo', fx('demo.log'), '--out', out)
        self.assertEqual(rc, 0, se)
        self.assertEqual(so.split(), [out + '.png', out + '.svg'])
        self.check_png_svg(so.split())


class Rfc2544(unittest.TestCase):
    def tearDown(self):
        import matplotlib.pyplot as plt
        plt.close('all')

    def test_rate_and_latency_against_frame_size(self):
        s = up.load_rfc2544(fx('rfc2544-hybrid.json'))
        figs = up.rfc2544_figures([s])
        rate = figs['rfc2544-rate']
        self.assertEqual([labels(a) for a in rate.axes], [['hybrid (illustrative)'], ['hybrid (illustrative)']])
        self.assertEqual(list(rate.axes[0].get_lines()[0].get_xdata()), [64, 128, 256, 512, 1024, 1280, 1518])
        self.assertIn('NDR', rate._suptitle.get_text())
        lat = figs['rfc2544-latency'].axes[0]
        self.assertEqual(labels(lat), ['hybrid (illustrative) p50', 'hybrid (illustrative) p99'])


class Demo(unittest.TestCase):
    def test_the_one_second_table_is_read(self):
        d = up.load_demo(fx('demo.log'))
        self.assertEqual(d['s'], [float(i) for i in range(1, 10)])
        self.assertEqual(d['rx_pps'][3], 916.4)
        self.assertEqual(d['cpu'][1], 59.56)
        self.assertEqual(d['title'], '4 s of traffic at 2kpps, then 4 s of silence')

    def test_interrupts_are_drawn_per_second(self):
        d = up.load_demo(fx('demo.log'))
        self.assertEqual(up.per_second(d['interrupts'])[:4], [0, 50, 69, 72])
        fig = up.demo_figure(d)
        self.assertEqual([labels(a) for a in fig.axes][:2], [['received', 'sent'], ['interrupts', 'sleeps']])
        import matplotlib.pyplot as plt
        plt.close('all')

    def test_output_without_the_table_is_refused(self):
        rc, so, se = run('demo', fx('poll.json'), '--out', '/nonexistent/x')
        self.assertEqual(rc, 1)
        self.assertIn(fx('poll.json'), se)
        self.assertIn('one line a second', se)
        self.assertNotIn('Traceback', se)


class BadInput(unittest.TestCase):
    """Each refused with exit status 1 and one line naming file and key."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='unic-plot-bad-')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, doc):
        p = os.path.join(self.tmp, name)
        with open(p, 'w') as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return p

    def sweep_doc(self):
        with open(fx('hybrid.json')) as f:
            return json.load(f)

    def refused(self, args, *words):
        rc, so, se = run(*(list(args) + ['--out', os.path.join(self.tmp, 'out')]))
        self.assertEqual(rc, 1, se)
        self.assertNotIn('Traceback', se)
        self.assertEqual(len(se.strip().splitlines()), 1, se)
        for w in words:
            self.assertIn(w, se)
        self.assertEqual([n for n in os.listdir(self.tmp) if n.startswith('out')], [])
        return se

    def test_a_step_without_a_key_is_refused(self):
        d = self.sweep_doc()
        del d['steps'][2]['achieved_pps']
        p = self.write('s.json', d)
        self.refused(['--sweep', p], p, 'steps[2]', '"achieved_pps"')

    def test_a_step_without_latency_percentile_is_refused(self):
        d = self.sweep_doc()
        del d['steps'][1]['latency_us']['p99']
        p = self.write('s.json', d)
        self.refused(['--sweep', p], p, 'steps[1].latency_us', '"p99"')

    def test_a_key_of_the_wrong_type_is_refused(self):
        d = self.sweep_doc()
        d['steps'][0]['offered_pps'] = '1000'
        p = self.write('s.json', d)
        self.refused(['--sweep', p], p, 'steps[0]', '"offered_pps"', 'expected a number')

    def test_a_report_without_steps_is_refused(self):
        d = self.sweep_doc()
        d['steps'] = []
        p = self.write('s.json', d)
        self.refused(['--sweep', p], p, '"steps"', 'empty')
        del d['steps']
        p = self.write('t.json', d)
        self.refused(['--sweep', p], p, 'missing key "steps"')

    def test_a_report_of_the_wrong_kind_is_refused(self):
        self.refused(['--sweep', fx('rfc2544-hybrid.json')], fx('rfc2544-hybrid.json'),
                     '"kind"', '"rfc2544"', '--rfc2544')
        self.refused(['--rfc2544', fx('poll.json')], fx('poll.json'), '"kind"', '"sweep"', '--sweep')
        d = self.sweep_doc()
        del d['kind']
        p = self.write('s.json', d)
        self.refused(['--sweep', p], p, 'missing key "kind"')

    def test_samples_given_as_a_report_are_refused(self):
        self.refused(['--sweep', fx('poll.jsonl')], fx('poll.jsonl'), 'not JSON', '--samples')

    def test_samples_outside_every_step_are_refused(self):
        lines = []
        with open(fx('hybrid.jsonl')) as f:
            for line in f:
                rec = json.loads(line)
                rec['time'] += 3600
                lines.append(json.dumps(rec))
        p = self.write('late.jsonl', '\n'.join(lines) + '\n')
        self.refused(['--sweep', fx('hybrid.json'), '--samples', p], p, '"time"', 'no step')

    def test_samples_without_cpu_seconds_are_refused(self):
        p = self.write('s.jsonl', '{"time":1764860000.0,"command":"/proc/cpu","data":{"pid":1}}\n')
        self.refused(['--sweep', fx('hybrid.json'), '--samples', p], p, 'line 1', '"cpu_seconds"')

    def test_samples_without_cpu_lines_are_refused(self):
        p = self.write('s.jsonl', '{"time":1764860000.0,"command":"/ports/stats","data":{}}\n')
        self.refused(['--sweep', fx('hybrid.json'), '--samples', p], p, '"command"', '/proc/cpu')

    def test_samples_of_a_restarted_process_are_refused(self):
        p = self.write('s.jsonl', '{"time":1764860001.0,"command":"/proc/cpu","data":{"cpu_seconds":5}}\n'
                       '{"time":1764860001.5,"command":"/proc/cpu","data":{"cpu_seconds":0.1}}\n')
        self.refused(['--sweep', fx('hybrid.json'), '--samples', p], p, 'line 2', 'cpu_seconds')

    def test_a_search_without_results_is_refused(self):
        with open(fx('rfc2544-hybrid.json')) as f:
            d = json.load(f)
        del d['results'][3]['rate_pps']
        p = self.write('r.json', d)
        self.refused(['--rfc2544', p], p, 'results[3]', '"rate_pps"')

    def test_a_missing_file_is_refused(self):
        p = os.path.join(self.tmp, 'nothere.json')
        self.refused(['--sweep', p], p, 'cannot read')

    def test_samples_before_any_sweep_are_a_usage_error(self):
        rc, so, se = run('--samples', fx('poll.jsonl'), '--sweep', fx('poll.json'), '--out',
                         os.path.join(self.tmp, 'x'))
        self.assertEqual(rc, 2)
        self.assertIn('comes after the --sweep', se)
        self.assertNotIn('Traceback', se)


class SampleCpu(unittest.TestCase):
    def test_a_busy_process_gets_increasing_cpu_seconds(self):
        child = subprocess.Popen([sys.executable, '-c', 'while True: pass'])
        tmp = tempfile.mkdtemp(prefix='unic-plot-cpu-')
        try:
            out = os.path.join(tmp, 'cpu.jsonl')
            rc, so, se = run('sample-cpu', '--pid', str(child.pid), '--every', '0.3', '--count', '6',
                             '--out', out)
            self.assertEqual(rc, 0, se)
            with open(out) as f:
                recs = [json.loads(line) for line in f]
            self.assertEqual(len(recs), 6)
            for r in recs:
                self.assertEqual(r['command'], '/proc/cpu')
                self.assertEqual(r['data']['pid'], child.pid)
                self.assertEqual([t['tid'] for t in r['data']['threads']], [child.pid])
            cpu = [r['data']['cpu_seconds'] for r in recs]
            times = [r['time'] for r in recs]
            self.assertEqual(cpu, sorted(cpu))
            self.assertGreater(cpu[-1], cpu[0])
            self.assertEqual(times, sorted(times))
            # The same file is read back as samples.
            self.assertEqual(len(up.load_samples(out)), 6)
        finally:
            child.kill()
            child.wait()
            shutil.rmtree(tmp)

    def test_it_stops_when_the_process_ends(self):
        child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1)'])
        tmp = tempfile.mkdtemp(prefix='unic-plot-cpu-')
        try:
            out = os.path.join(tmp, 'cpu.jsonl')
            # The child is a zombie until this test waits for it: sample-cpu
            # stops at either.
            p = subprocess.Popen([sys.executable, SCRIPT, 'sample-cpu', '--pid', str(child.pid),
                                  '--every', '0.2', '--out', out], stderr=subprocess.PIPE, text=True)
            child.wait()
            _, se = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, se)
            self.assertIn('samples of pid %d' % child.pid, se)
        finally:
            child.kill()
            child.wait()
            shutil.rmtree(tmp)

    def test_no_such_process_is_refused(self):
        rc, so, se = run('sample-cpu', '--pid', '999999999', '--out', '/dev/null')
        self.assertEqual(rc, 1)
        self.assertIn('/proc/999999999/stat', se)
        self.assertNotIn('Traceback', se)


if __name__ == '__main__':
    unittest.main()
