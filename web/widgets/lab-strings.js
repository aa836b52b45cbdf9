// The words of <pe-lab>, in English and Chinese. {name} is replaced by a value.
const en = {
  title: 'The PE lab: train a tiny Transformer and watch position matter',
  task: 'task', attention: 'attention', encodings: 'encodings', dModel: 'd_model', layers: 'layers', steps: 'steps',
  train: 'Train', stop: 'Stop', reset: 'Reset',
  'task_who-did-what': 'who did what ("Ann hits Bob ?" → Ann)', task_shift: 'shift (the token two places back)',
  task_copy: 'copy (repeat the symbols)', task_reverse: 'reverse (the symbols backwards)',
  attention_bidirectional: 'bidirectional (every token sees every token)', attention_causal: 'causal (only earlier tokens)',
  enc_none: 'none', enc_sinusoidal: 'sinusoidal', enc_learned: 'learned', enc_rope: 'RoPE', enc_alibi: 'ALiBi', enc_t5: 'T5 buckets',
  idle: 'Pick encodings and press Train. Training runs in a background thread.',
  training: 'Training {encoding}: step {step} of {steps}, loss {loss}, accuracy {accuracy}',
  trained: '{encoding}: {accuracy} accuracy after {steps} steps ({seconds} s).',
  stopped: 'Stopped. The curves so far stay; Reset clears them.',
  noEncoding: 'Pick at least one encoding.',
  loss: 'training loss', accuracy: 'training accuracy', step: 'step',
  length: 'test length (trained on {lo}–{hi})', lengthAccuracy: 'accuracy on fresh examples',
  sentence: 'sentence for the attention maps', show: 'Show attention', model: 'model',
  unknownWord: 'Cannot read the sentence at "{rest}". Known words: {words}.',
  mapsCaption: 'Rows: the token that attends (query); columns: the token attended to. Darker = more weight. One map per layer and head.',
  layerHead: 'layer {l}, head {h}',
  chance: 'chance',
  seeds: 'seeds for the length plot', min: 'min', max: 'max',
  noWorker: 'This browser cannot run the lab: it lacks module workers.',
};

const zh = {
  title: '位置编码实验室：训练一个小 Transformer，亲眼看位置的作用',
  task: '任务', attention: '注意力', encodings: '位置编码', dModel: 'd_model', layers: '层数', steps: '步数',
  train: '训练', stop: '停止', reset: '重置',
  'task_who-did-what': '谁做了什么（“我 打 你 ？” → 我）', task_shift: '移位（往前数第二个词元）',
  task_copy: '复制（原样重复符号）', task_reverse: '倒序（把符号倒过来）',
  attention_bidirectional: '双向（每个词元看见所有词元）', attention_causal: '因果（只看见前面的词元）',
  enc_none: '无', enc_sinusoidal: '正弦', enc_learned: '可学习', enc_rope: 'RoPE', enc_alibi: 'ALiBi', enc_t5: 'T5 分桶',
  idle: '选好位置编码后点“训练”。训练在后台线程里进行，页面不会卡住。',
  training: '正在训练 {encoding}：第 {step}/{steps} 步，损失 {loss}，准确率 {accuracy}',
  trained: '{encoding}：训练 {steps} 步后准确率 {accuracy}（{seconds} 秒）。',
  stopped: '已停止。已画出的曲线保留，“重置”会清空。',
  noEncoding: '请至少选一种位置编码。',
  loss: '训练损失', accuracy: '训练准确率', step: '步',
  length: '测试长度（训练长度 {lo}–{hi}）', lengthAccuracy: '新样本上的准确率',
  sentence: '用来看注意力图的句子', show: '显示注意力', model: '模型',
  unknownWord: '读不懂句子中“{rest}”这一处。认识的词：{words}。',
  mapsCaption: '行：发出注意力的词元（query）；列：被关注的词元。颜色越深权重越大。每层每个头一张图。',
  layerHead: '第 {l} 层，第 {h} 个头',
  chance: '随机猜测',
  seeds: '长度图的种子数', min: '最小', max: '最大',
  noWorker: '这个浏览器不支持模块 Worker，无法运行实验室。',
};

const STRINGS = { en, zh };

export function labText(lang, key, vars = {}) {
  const s = STRINGS[lang]?.[key] ?? en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}
