// Peer harness for benches/peers.sh: imports a glTF/GLB with Assimp and runs its
// LimitBoneWeights step at 4 influences per vertex (what `dash reduce --max-influences 4
// --normalize unit` does), then prints how many bone weights remain. Built against
// Debian's libassimp-dev: g++ -O2 assimp_limit.cpp -lassimp -o assimp_limit
#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/config.h>
#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: assimp_limit FILE\n");
        return 2;
    }
    Assimp::Importer importer;
    importer.SetPropertyInteger(AI_CONFIG_PP_LBW_MAX_WEIGHTS, 4);
    const aiScene* scene = importer.ReadFile(argv[1], 0);
    if (!scene) {
        std::fprintf(stderr, "assimp: %s\n", importer.GetErrorString());
        return 1;
    }
    auto count = [](const aiScene* s, unsigned long long& vertices) {
        unsigned long long weights = 0;
        vertices = 0;
        for (unsigned m = 0; m < s->mNumMeshes; ++m) {
            const aiMesh* mesh = s->mMeshes[m];
            vertices += mesh->mNumVertices;
            for (unsigned b = 0; b < mesh->mNumBones; ++b) weights += mesh->mBones[b]->mNumWeights;
        }
        return weights;
    };
    unsigned long long vertices = 0;
    unsigned long long before = count(scene, vertices);
    scene = importer.ApplyPostProcessing(aiProcess_LimitBoneWeights);
    if (!scene) {
        std::fprintf(stderr, "assimp: %s\n", importer.GetErrorString());
        return 1;
    }
    unsigned long long after = count(scene, vertices);
    std::printf("%llu vertices, %llu bone weights imported, %llu after LimitBoneWeights(4)\n",
                vertices, before, after);
    return 0;
}
